/**
 * Runs one statement on one connection: converts placeholders, binds parameters, prepares it
 * when asked, and, when the provider has `debug = true`, logs the statement, its parameters and
 * its duration.
 */
import { getLogger, type Logger } from '@protean-ts/core';
import type { ExecuteOptions, SqlResult } from '../sql-executor.js';
import type { PgConnection, PgQueryResult } from './pg-connection.js';
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

  async run<R>(connection: PgConnection, sql: string, params: readonly unknown[] = [], options?: ExecuteOptions): Promise<SqlResult<R>> {
    const text = toPositional(sql);
    const values = params as unknown[];
    if (!this.debug) {
      const result = await send(connection, text, values, options?.prepare === true);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    }
    const started = performance.now();
    try {
      const result = await send(connection, text, values, options?.prepare === true);
      this.log.debug('sql', { sql: text, params: values, rows: result.rowCount ?? 0, ms: round(performance.now() - started) });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      this.log.debug('sql failed', { sql: text, params: values, ms: round(performance.now() - started), error: (error as Error).message });
      throw error;
    }
  }
}

function send(connection: PgConnection, text: string, values: unknown[], prepare: boolean): Promise<PgQueryResult> {
  const name = prepare ? preparedName(text) : undefined;
  return name ? connection.query({ name, text, values }) : connection.query(text, values);
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
