/**
 * The database index of a Redis URI (`redis://host:6379/3`) must exist on the server. ioredis
 * selects it on connect, but when SELECT fails it only emits an error and goes on with database
 * 0, so a typo would read and write another application's keys. Connecting checks it instead,
 * and a missing database is a settings mistake that refuses the start.
 */
import type { Redis } from 'ioredis';
import { BrokerSettingsError } from '@protean-ts/core';
import { isRedisDatabaseIndexError } from './redis-connection-errors.js';

/** Selects the URI's database on `client` (just connected); throws BrokerSettingsError when the server has no such database. */
export async function checkRedisDatabase(client: Redis, brokerName: string, maskedUri: string): Promise<void> {
  const database = Number(client.options.db ?? 0);
  if (database === 0) return;
  try {
    await client.select(database);
  } catch (error) {
    if (!(error instanceof Error) || !isRedisDatabaseIndexError(error)) throw error;
    const count = await databaseCount(client);
    const range = count === null ? '' : `; it has ${count} (0 to ${count - 1})`;
    throw new BrokerSettingsError(
      brokerName,
      'uri',
      `Redis at ${maskedUri} has no database ${database} (it answered "${error.message}"${range}); ` +
        'use an index it has as the path of uri (e.g. /0), or raise `databases` in redis.conf',
    );
  }
}

/** `databases` of redis.conf, or null when CONFIG is not allowed (managed Redis, ACLs). */
async function databaseCount(client: Redis): Promise<number | null> {
  try {
    const [, value] = (await client.config('GET', 'databases')) as [string, string];
    const count = Number(value);
    return Number.isInteger(count) && count > 0 ? count : null;
  } catch {
    return null;
  }
}
