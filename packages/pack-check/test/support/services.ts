/** A PostgreSQL database and a Redis key prefix of one test file's own, and their cleanup. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createTemporaryDatabase } from '@protean-ts/conformance/fixtures';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface Isolation {
  databaseUrl: string;
  streamPrefix: string;
  drop(): Promise<void>;
}

export async function isolatedServices(label: string): Promise<Isolation> {
  const database = await createTemporaryDatabase({ label });
  const streamPrefix = `${label}-${randomBytes(4).toString('hex')}:`;
  return {
    databaseUrl: database.uri,
    streamPrefix,
    async drop() {
      await database.drop();
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
