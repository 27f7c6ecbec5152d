/**
 * What a phase cost PostgreSQL and Redis, from their own counters: commits and row changes of
 * the round's database (pg_stat_database; pg_stat_statements is not loaded on this server, so
 * statements are not counted) and commands Redis ran (INFO commandstats, server-wide: anything
 * else using this Redis counts too).
 */
import { Redis } from 'ioredis';
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';

/**
 * A backend that went idle less than a second after its last report holds its counts for up to
 * PGSTAT_IDLE_INTERVAL (10 s) before pg_stat_database sees them: wait that long before the
 * closing reading.
 */
export const PG_STATS_FLUSH_MS = 11_000;

export interface DatabaseCounters {
  commits: number;
  rowsInserted: number;
  rowsUpdated: number;
  rowsDeleted: number;
}

export async function databaseCounters(db: TempDatabase): Promise<DatabaseCounters> {
  const [row] = await db.query<{ xact_commit: string; tup_inserted: string; tup_updated: string; tup_deleted: string }>(
    'SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = $1',
    [db.name],
  );
  return {
    commits: Number(row!.xact_commit),
    rowsInserted: Number(row!.tup_inserted),
    rowsUpdated: Number(row!.tup_updated),
    rowsDeleted: Number(row!.tup_deleted),
  };
}

export function counterDelta(after: DatabaseCounters, before: DatabaseCounters): DatabaseCounters {
  return {
    commits: after.commits - before.commits,
    rowsInserted: after.rowsInserted - before.rowsInserted,
    rowsUpdated: after.rowsUpdated - before.rowsUpdated,
    rowsDeleted: after.rowsDeleted - before.rowsDeleted,
  };
}

/** Commands the Redis server has run since it started, all types together (INFO commandstats). */
export async function redisCommandsRun(uri = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<number> {
  const redis = new Redis(uri, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('commandstats');
    // The INFO call itself (one, on this connection) is left in: one command per reading.
    return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  } finally {
    redis.disconnect();
  }
}
