/**
 * Runs one statement on one connection: converts placeholders, binds parameters, prepares it
 * when asked, sends a transaction's BEGIN (or a savepoint's SAVEPOINT) along with it when asked,
 * and, when the provider has `debug = true`, logs the statement, its parameters and its duration.
 */
import { createRequire } from 'node:module';
import { getLogger, type Logger } from '@protean-ts/core';
import { NO_ROWS, type RidingStatement } from '../deferred-statements.js';
import type { ExecuteOptions, SqlResult } from '../sql-executor.js';
import type { PgConnection, PgQueryResult } from './pg-connection.js';
import { queryWithPrefix, type PrefixStatement } from './pipelined-prefix.js';
import { toPositional } from './placeholders.js';
import { preparedName } from './prepared-statements.js';

const NO_PREFIX: readonly string[] = [];
const BEGIN_ONLY: readonly string[] = ['BEGIN'];
const COMMIT_ONLY: readonly string[] = ['COMMIT'];

// node-postgres's own conversion of a parameter to its wire text (dates, arrays, JSON, buffers),
// for the bound statements this runner sends ahead of another.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): string | Buffer | null };

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
    prefix: readonly PrefixStatement[],
    sql: string,
    params: readonly unknown[] = [],
    options?: ExecuteOptions,
  ): Promise<SqlResult<R>> {
    return this.send(connection, prefix, sql, params, options);
  }

  /**
   * Runs the statements in order and then COMMIT, in one round trip (BEGIN first when `begin`):
   * the statements of the flushes that ride with a commit. Every statement but the last is sent
   * ahead of it and answers with no rows. A prepared one not yet parsed on this connection goes
   * in a round trip of its own the first time; after that only its Bind and Execute ride along.
   */
  async runAllThenCommit(connection: PgConnection, begin: boolean, statements: readonly RidingStatement[]): Promise<SqlResult<unknown>[]> {
    let prefix: PrefixStatement[] = begin ? [...BEGIN_ONLY] : [];
    const results: SqlResult<unknown>[] = [];
    for (const statement of statements.slice(0, -1)) {
      const text = toPositional(statement.sql);
      const name = statement.options?.prepare === true ? preparedName(text) : undefined;
      if (name !== undefined && !parsedOn(connection, name)) {
        results.push(await this.send(connection, prefix, statement.sql, statement.params, statement.options));
        prefix = [];
        continue;
      }
      prefix.push({ text, values: statement.params.map(prepareValue), ...(name === undefined ? {} : { name }) });
      results.push(NO_ROWS);
    }
    const last = statements[statements.length - 1]!;
    results.push(await this.send(connection, prefix, last.sql, last.params, last.options, COMMIT_ONLY));
    return results;
  }

  private async send<R>(
    connection: PgConnection,
    prefix: readonly PrefixStatement[],
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
  prefix: readonly PrefixStatement[],
  text: string,
  values: unknown[],
  name: string | undefined,
  suffix: readonly string[],
): Promise<PgQueryResult> {
  // A named statement goes through the prefixed query class even alone: node-postgres would copy
  // a `{ name, text, values }` config property by property on every call.
  if (prefix.length > 0 || suffix.length > 0 || name) return queryWithPrefix(connection, prefix, text, values, name, suffix);
  return connection.query(text, values);
}

/** What a debug record says was sent ahead of the statement: `withBegin` as it always has for a transaction's BEGIN alone. */
function prefixFields(prefix: readonly PrefixStatement[]): Record<string, unknown> {
  if (prefix.length === 0) return {};
  if (prefix.length === 1 && prefix[0] === 'BEGIN') return { withBegin: true };
  return { after: prefix.map((statement) => (typeof statement === 'string' ? statement : statement.text)) };
}

/** Whether node-postgres has parsed the named statement on this connection (its own bookkeeping). */
function parsedOn(connection: PgConnection, name: string): boolean {
  return (connection as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements?.[name] !== undefined;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
