/**
 * Runs one statement on one connection: converts placeholders, binds parameters, prepares it
 * when asked, sends a transaction's BEGIN (or a savepoint's SAVEPOINT) along with it when asked,
 * and, when the provider has `debug = true`, logs the statement, its parameters and its duration.
 */
import { getLogger, type Logger } from '@protean-ts/core';
import type { ExecuteOptions, SqlResult } from '../sql-executor.js';
import type { PgConnection, PgQueryResult } from './pg-connection.js';
import { queryWithPrefix } from './pipelined-prefix.js';
import { toPositional } from './placeholders.js';
import { preparedName } from './prepared-statements.js';

const NO_PREFIX: readonly string[] = [];
const BEGIN_ONLY: readonly string[] = ['BEGIN'];

export class StatementRunner {
  private readonly log: Logger;

  constructor(
    readonly providerName: string,
    private readonly debug: boolean,
  ) {
    this.log = getLogger('postgresql', { provider: providerName });
  }

  run<R>(connection: PgConnection, sql: string, params: readonly unknown[] = [], options?: ExecuteOptions): Promise<SqlResult<R>> {
    return this.send(connection, NO_PREFIX, sql, params, options);
  }

  /** Runs a transaction's first statement with the transaction's BEGIN in the same round trip. */
  runWithBegin<R>(connection: PgConnection, sql: string, params: readonly unknown[] = [], options?: ExecuteOptions): Promise<SqlResult<R>> {
    return this.send(connection, BEGIN_ONLY, sql, params, options);
  }

  /**
   * Runs `prefix` (fixed statements without parameters, such as `['BEGIN', 'SAVEPOINT s1']`) and
   * then the statement, in one round trip; resolves to the statement's result.
   */
  runAfter<R>(
    connection: PgConnection,
    prefix: readonly string[],
    sql: string,
    params: readonly unknown[] = [],
    options?: ExecuteOptions,
  ): Promise<SqlResult<R>> {
    return this.send(connection, prefix, sql, params, options);
  }

  /**
   * Runs `prefix`, the statement, then `suffix` (a transaction's COMMIT), in one round trip;
   * resolves to the statement's result. When the statement fails the suffix does not run.
   */
  runAround<R>(
    connection: PgConnection,
    prefix: readonly string[],
    sql: string,
    params: readonly unknown[] = [],
    options: ExecuteOptions | undefined,
    suffix: readonly string[],
  ): Promise<SqlResult<R>> {
    return this.send(connection, prefix, sql, params, options, suffix);
  }

  private async send<R>(
    connection: PgConnection,
    prefix: readonly string[],
    sql: string,
    params: readonly unknown[],
    options: ExecuteOptions | undefined,
    suffix: readonly string[] = NO_PREFIX,
  ): Promise<SqlResult<R>> {
    const text = toPositional(sql);
    const values = params as unknown[];
    const name = options?.prepare === true ? preparedName(text) : undefined;
    if (!this.debug) {
      const result = await query(connection, prefix, text, values, name, suffix);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    }
    const started = performance.now();
    const carried = { ...prefixFields(prefix), ...(suffix.length > 0 ? { then: suffix } : {}) };
    try {
      const result = await query(connection, prefix, text, values, name, suffix);
      this.log.debug('sql', { sql: text, params: values, ...carried, rows: result.rowCount ?? 0, ms: round(performance.now() - started) });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      this.log.debug('sql failed', { sql: text, params: values, ...carried, ms: round(performance.now() - started), error: (error as Error).message });
      throw error;
    }
  }
}

function query(
  connection: PgConnection,
  prefix: readonly string[],
  text: string,
  values: unknown[],
  name: string | undefined,
  suffix: readonly string[],
): Promise<PgQueryResult> {
  if (prefix.length > 0 || suffix.length > 0) return queryWithPrefix(connection, prefix, text, values, name, suffix);
  return name ? connection.query({ name, text, values }) : connection.query(text, values);
}

/** What a debug record says was sent ahead of the statement: `withBegin` as it always has for a transaction's BEGIN alone. */
function prefixFields(prefix: readonly string[]): Record<string, unknown> {
  if (prefix.length === 0) return {};
  if (prefix.length === 1 && prefix[0] === 'BEGIN') return { withBegin: true };
  return { after: prefix };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
