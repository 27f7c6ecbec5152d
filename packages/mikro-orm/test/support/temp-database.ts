/**
 * A throw-away PostgreSQL database per test file (`pt_<random>` on the local server), so files
 * run in parallel without seeing each other's tables. `drop()` removes it even with connections
 * still open.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const SERVER_URI = 'postgresql://postgres@127.0.0.1:5432';

export interface TempDatabase {
  name: string;
  uri: string;
  drop(): Promise<void>;
}

async function admin<R>(work: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: `${SERVER_URI}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(prefix = 'pt'): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    uri: `${SERVER_URI}/${name}`,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
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
