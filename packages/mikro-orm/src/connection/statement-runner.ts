/**
 * Runs one statement on one connection: converts placeholders, binds parameters, prepares it
 * when asked, sends a transaction's BEGIN along with it when asked, and, when the provider has
 * `debug = true`, logs the statement, its parameters and its duration.
 */
import { getLogger, type Logger } from '@protean-ts/core';
import type { ExecuteOptions, SqlResult } from '../sql-executor.js';
import type { PgConnection, PgQueryResult } from './pg-connection.js';
import { queryWithBegin } from './pipelined-begin.js';
import { toPositional } from './placeholders.js';
import { preparedName } from './prepared-statements.js';

export class StatementRunner {
  private readonly log: Logger;

  constructor(
    readonly providerName: string,
    private readonly debug: boolean,
  ) {
    this.log = getLogger('postgresql', { provider: providerName });
  }

  run<R>(connection: PgConnection, sql: string, params: readonly unknown[] = [], options?: ExecuteOptions): Promise<SqlResult<R>> {
    return this.send(connection, sql, params, options, false);
  }

  /** Runs a transaction's first statement with the transaction's BEGIN in the same round trip. */
  runWithBegin<R>(connection: PgConnection, sql: string, params: readonly unknown[] = [], options?: ExecuteOptions): Promise<SqlResult<R>> {
    return this.send(connection, sql, params, options, true);
  }

  private async send<R>(
    connection: PgConnection,
    sql: string,
    params: readonly unknown[],
    options: ExecuteOptions | undefined,
    begin: boolean,
  ): Promise<SqlResult<R>> {
    const text = toPositional(sql);
    const values = params as unknown[];
    const name = options?.prepare === true ? preparedName(text) : undefined;
    if (!this.debug) {
      const result = await query(connection, text, values, name, begin);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    }
    const started = performance.now();
    const carried = begin ? { withBegin: true } : {};
    try {
      const result = await query(connection, text, values, name, begin);
      this.log.debug('sql', { sql: text, params: values, ...carried, rows: result.rowCount ?? 0, ms: round(performance.now() - started) });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      this.log.debug('sql failed', { sql: text, params: values, ...carried, ms: round(performance.now() - started), error: (error as Error).message });
      throw error;
    }
  }
}

function query(connection: PgConnection, text: string, values: unknown[], name: string | undefined, begin: boolean): Promise<PgQueryResult> {
  if (begin) return queryWithBegin(connection, text, values, name);
  return name ? connection.query({ name, text, values }) : connection.query(text, values);
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
