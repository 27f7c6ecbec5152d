/**
 * A throw-away PostgreSQL database per test file (`pt_<random>`, through the shared
 * `createTemporaryDatabase`), and one-shot queries for inspecting tables behind the provider's back.
 */
import pg from 'pg';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI, type TemporaryDatabase } from '@protean-ts/conformance/fixtures';

export const SERVER_URI = LOCAL_POSTGRES_URI;

export type TempDatabase = TemporaryDatabase;

export function createTempDatabase(prefix = 'pt'): Promise<TempDatabase> {
  return createTemporaryDatabase({ label: prefix });
}

/** Runs one query on a fresh connection to `uri` (inspecting tables behind the provider's back). */
export async function queryDatabase<R extends Record<string, unknown>>(uri: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
