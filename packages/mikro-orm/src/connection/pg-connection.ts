/**
 * The slice of a node-postgres client this package uses. Connections come from MikroORM's pool
 * (knex/tarn); typing only what is called keeps the package independent of which copy of `pg`
 * MikroORM resolved.
 */

export interface PgQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

export interface PgConnection {
  // Text and values as two arguments: a config object would be cloned on every call.
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResult>;
  /** A named (prepared) statement: parsed once per connection, then only bound and executed. */
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<PgQueryResult>;
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
