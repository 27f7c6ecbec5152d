/** A PostgreSQL database and a Redis key prefix of one test file's own, and their cleanup. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const POSTGRES_SERVER = 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface Isolation {
  databaseUrl: string;
  streamPrefix: string;
  drop(): Promise<void>;
}

export async function isolatedServices(label: string): Promise<Isolation> {
  const suffix = randomBytes(4).toString('hex');
  const database = `${label}_${suffix}`;
  const streamPrefix = `${label}-${suffix}:`;
  await adminQuery(`CREATE DATABASE "${database}"`);
  return {
    databaseUrl: `${POSTGRES_SERVER}/${database}`,
    streamPrefix,
    async drop() {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${streamPrefix}*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    },
  };
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
