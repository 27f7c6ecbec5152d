/**
 * A Redis key prefix of its own per run (the broker's `stream_prefix`), so runs sharing the
 * local Redis never read each other's streams, and everything under it is deleted afterwards.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_SERVER = 'redis://127.0.0.1:6379';

export interface RedisNamespace {
  prefix: string;
  /** Every key under the prefix, without it. */
  keys(): Promise<string[]>;
  /** Raw access, e.g. to play a system outside the domain that writes to a stream. */
  client: Redis;
  drop(): Promise<void>;
}

export async function createRedisNamespace(name = 'shop'): Promise<RedisNamespace> {
  const prefix = `${name}-${randomBytes(5).toString('hex')}:`;
  const client = new Redis(REDIS_SERVER, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return found.map((key) => key.slice(prefix.length));
  };
  return {
    prefix,
    keys,
    client,
    drop: async () => {
      const all = await keys();
      if (all.length) await client.del(...all.map((key) => prefix + key));
      client.disconnect();
    },
  };
}
