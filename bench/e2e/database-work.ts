/**
 * What a phase cost PostgreSQL and Redis, from their own counters: commits and row changes of
 * the round's database (pg_stat_database), statements it ran (pg_stat_statements, when the server
 * preloads it: `shared_preload_libraries = 'pg_stat_statements'`; otherwise not counted) and
 * commands Redis ran (INFO commandstats, server-wide: anything else using this Redis counts too).
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
  /** Statements of every kind (BEGIN and COMMIT included); null without pg_stat_statements. */
  statements: number | null;
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
    statements: await statementsRun(db),
    commits: Number(row!.xact_commit),
    rowsInserted: Number(row!.tup_inserted),
    rowsUpdated: Number(row!.tup_updated),
    rowsDeleted: Number(row!.tup_deleted),
  };
}

export function counterDelta(after: DatabaseCounters, before: DatabaseCounters): DatabaseCounters {
  return {
    statements: after.statements === null || before.statements === null ? null : after.statements - before.statements,
    commits: after.commits - before.commits,
    rowsInserted: after.rowsInserted - before.rowsInserted,
    rowsUpdated: after.rowsUpdated - before.rowsUpdated,
    rowsDeleted: after.rowsDeleted - before.rowsDeleted,
  };
}

/**
 * Statements the database has run, from pg_stat_statements (calls summed over the database's
 * entries, kept in shared memory: no flush to wait for); null when the server does not preload it.
 */
async function statementsRun(db: TempDatabase): Promise<number | null> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const [row] = await db.query<{ calls: string | null }>(
      'SELECT sum(calls)::text AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    return Number(row?.calls ?? 0);
  } catch {
    return null;
  }
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
