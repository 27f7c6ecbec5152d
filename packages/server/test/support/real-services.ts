/**
 * Real-service helpers for integration tests: a throw-away PostgreSQL database per file, a
 * unique Redis stream prefix, and a private redis-server that a test may kill and restart.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_URI = 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URI = 'redis://127.0.0.1:6379';

export interface TempDatabase {
  name: string;
  uri: string;
  drop(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_URI}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(): Promise<TempDatabase> {
  const name = `srv_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  return { name, uri: `${POSTGRES_URI}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** A stream prefix no other test file uses, so files share the Redis server safely. */
export function uniquePrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}:`;
}

export { freePort, startRedisServer, stopProcess } from '@protean-ts/core/testing';
