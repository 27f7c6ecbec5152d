/**
 * A throw-away PostgreSQL database per run (`shop_<random>` on the local server), so test files
 * and benchmark rounds never see each other's tables. `drop()` works with connections still open.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_SERVER = 'postgresql://postgres@127.0.0.1:5432';

export interface TempDatabase {
  name: string;
  uri: string;
  /** Runs one statement on a short-lived connection (reading tables behind the framework's back). */
  query<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

async function withClient<R>(uri: string, work: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(prefix = 'shop'): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = `${POSTGRES_SERVER}/postgres`;
  await withClient(admin, (c) => c.query(`CREATE DATABASE "${name}"`));
  const uri = `${POSTGRES_SERVER}/${name}`;
  return {
    name,
    uri,
    query: (sql, params = []) => withClient(uri, async (c) => (await c.query(sql, params)).rows),
    drop: () => withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
