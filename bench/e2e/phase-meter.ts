/**
 * What one phase cost, read around it: messages handled, CPU of the processes that handle them,
 * commits and row changes of the round's database, Redis commands. The closing reading of
 * PostgreSQL waits for its statistics to arrive (PG_STATS_FLUSH_MS), so the figures include the
 * last transactions; anything else that ran in the window is in them too (the server's idle
 * polling, the harness's reads, subtracted where counted).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { counterDelta, databaseCounters, PG_STATS_FLUSH_MS, redisCommandsRun, type DatabaseCounters } from './database-work.js';

/** Where a phase's handled messages and handling CPU are read from. */
export interface HandlingProbe {
  /** Messages handled so far (a counter that only grows). */
  handled(): Promise<number>;
  /** CPU milliseconds used so far by the processes that handle them. */
  cpuMs(): number;
}

export interface PhaseCosts {
  handled: number;
  cpuMs: number;
  database: DatabaseCounters;
  /** Commands Redis ran in the window (server-wide); null when the broker is not Redis. */
  redisCommands: number | null;
}

export class PhaseMeter {
  private constructor(
    private readonly db: TempDatabase,
    private readonly probe: HandlingProbe,
    private readonly countRedis: boolean,
    private readonly before: { handled: number; cpuMs: number; database: DatabaseCounters; redis: number },
  ) {}

  /** Takes the opening reading; the database's statistics must be up to date (see waitForPgStats). */
  static async start(db: TempDatabase, probe: HandlingProbe, countRedis: boolean): Promise<PhaseMeter> {
    const database = await databaseCounters(db);
    const redis = countRedis ? await redisCommandsRun() : 0;
    return new PhaseMeter(db, probe, countRedis, { handled: await probe.handled(), cpuMs: probe.cpuMs(), database, redis });
  }

  /** Takes the closing reading once the phase is settled; `harnessTransactions`: the harness's own reads of the database in the window. */
  async finish(harnessTransactions: number): Promise<PhaseCosts> {
    const handled = (await this.probe.handled()) - this.before.handled;
    const cpuMs = this.probe.cpuMs() - this.before.cpuMs;
    // The opening INFO call is counted in the closing one.
    const redisCommands = this.countRedis ? (await redisCommandsRun()) - this.before.redis - 1 : null;
    await waitForPgStats();
    const database = counterDelta(await databaseCounters(this.db), this.before.database);
    // The opening reading's commits are counted in the closing one: its pg_stat_database read,
    // and with pg_stat_statements its CREATE EXTENSION IF NOT EXISTS and statement count.
    database.commits -= harnessTransactions + 1 + (database.statements === null ? 0 : 2);
    return { handled, cpuMs, database, redisCommands };
  }
}

/** Waits until every backend's counts have reached pg_stat_database. */
export function waitForPgStats(): Promise<void> {
  return sleep(PG_STATS_FLUSH_MS);
}
