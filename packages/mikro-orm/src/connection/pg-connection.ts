/**
 * The slice of a node-postgres client this package uses. Connections come from MikroORM's pool
 * (knex/tarn); typing only what is called keeps the package independent of which copy of `pg`
 * MikroORM resolved.
 */

export interface PgQueryConfig {
  text: string;
  values?: unknown[];
  /** Names a prepared statement; node-postgres parses it once per connection. */
  name?: string;
}

export interface PgQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

export interface PgConnection {
  query(config: PgQueryConfig): Promise<PgQueryResult>;
}

/** A PostgreSQL error as node-postgres reports it (SQLSTATE in `code`). */
export interface PgError extends Error {
  code?: string;
  constraint?: string;
  table?: string;
  detail?: string;
}

export function isPgError(error: unknown, code: string): error is PgError {
  return error instanceof Error && (error as PgError).code === code;
}
