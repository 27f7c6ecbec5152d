/**
 * bench/lanes: a live event stream's handling delay (commit to handler start, p50 / p99) through
 * the real Engine on Redis, in three cases in one run: lanes on with no backfill, lanes on while a
 * 20,000-event backfill (committed in the backfill lane before the engine starts) drains, and
 * lanes off with the same backfill (everything in one lane: the baseline). Each case has a
 * database and Redis prefix of its own, removed at the end.
 *
 *   npm run bench:lanes   (env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_BACKFILL (20000),
 *                          BENCH_KEYS (1000: feeds the backfill is spread over), BENCH_WORK_MS (5:
 *                          the handler's wait), BENCH_LIVE_PER_SECOND (10), BENCH_LIVE_SECONDS (10:
 *                          the case without backfill), BENCH_MAX_SECONDS (900: a drain that takes longer fails))
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { configureLogging } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import '@protean-ts/mikro-orm';
import '@protean-ts/redis';
import { Engine } from '@protean-ts/server';
import { lanesDomain } from './lanes-domain.js';
import { deleteRedisKeys } from '../redis-keys.js';

const REDIS_URI = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BACKFILL = Number(process.env.BENCH_BACKFILL ?? 20_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 1000);
const WORK_MS = Number(process.env.BENCH_WORK_MS ?? 5);
const LIVE_PER_SECOND = Number(process.env.BENCH_LIVE_PER_SECOND ?? 10);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 900);

interface Case {
  name: string;
  lanes: boolean;
  backfill: number;
}

interface CaseResult {
  live: number;
  p50: number;
  p99: number;
  max: number;
  /** Seconds from the engine's start until the backfill was handled (null without one). */
  drainSeconds: number | null;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

async function runCase(c: Case, redis: Redis, tag: string): Promise<CaseResult> {
  const prefix = `bench:lanes:${tag}:${c.lanes ? 'on' : 'off'}:${c.backfill}:`;
  const db = await createTemporaryDatabase({ label: 'pt_bench_lanes', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const app = lanesDomain({ databaseUri: db.uri, redisUri: REDIS_URI, prefix, lanesEnabled: c.lanes, workMs: WORK_MS });
  let engine: Engine | null = null;
  try {
    await app.setUp();
    await app.commitBackfill(c.backfill, KEYS);
    engine = new Engine(app.domain, { health: false });
    await engine.start();
    const begin = performance.now();
    const until = c.backfill > 0 ? () => app.counts.backfillHandled >= c.backfill : () => performance.now() - begin >= LIVE_SECONDS * 1000;
    let sent = 0;
    let drainSeconds: number | null = null;
    while (!until()) {
      if (performance.now() - begin > MAX_SECONDS * 1000)
        throw new Error(`${c.name}: ${app.counts.backfillHandled} of ${c.backfill} backfill events handled after ${MAX_SECONDS} s`);
      await app.commitLive();
      sent += 1;
      // Paced by the clock, so a slow commit does not lower the live rate.
      const nextAt = begin + (sent * 1000) / LIVE_PER_SECOND;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextAt - performance.now())));
    }
    if (c.backfill > 0) drainSeconds = (performance.now() - begin) / 1000;
    const waitUntil = performance.now() + 60_000;
    while (app.counts.liveDelays.length < sent && performance.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 20));
    if (app.counts.liveDelays.length < sent) throw new Error(`${c.name}: ${app.counts.liveDelays.length} of ${sent} live events handled`);
    const delays = app.counts.liveDelays;
    return { live: sent, p50: percentile(delays, 50), p99: percentile(delays, 99), max: Math.max(...delays), drainSeconds };
  } finally {
    await engine?.stop().catch(() => undefined);
    await app.domain.close().catch(() => undefined);
    await deleteRedisKeys(redis, prefix);
    await db.drop();
  }
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  const tag = randomBytes(4).toString('hex');
  const redis = new Redis(REDIS_URI);
  const cases: Case[] = [
    { name: 'lanes on, no backfill', lanes: true, backfill: 0 },
    { name: `lanes on, ${BACKFILL}-event backfill`, lanes: true, backfill: BACKFILL },
    { name: `lanes off (one lane), ${BACKFILL}-event backfill`, lanes: false, backfill: BACKFILL },
  ];
  console.log(
    `bench/lanes: Redis ${REDIS_URI}; handler waits ${WORK_MS} ms; live ${LIVE_PER_SECOND}/s on feeds of their own; backfill ${BACKFILL} events over ${KEYS} feeds, committed before the engine starts; defaults otherwise (concurrency 32, share 0.25)`,
  );
  const results: { c: Case; r: CaseResult }[] = [];
  try {
    for (const c of cases) {
      const r = await runCase(c, redis, tag);
      results.push({ c, r });
      console.log(
        `  ${c.name}: ${r.live} live events, p50 ${r.p50} ms, p99 ${r.p99} ms${r.drainSeconds === null ? '' : `, backfill drained in ${r.drainSeconds.toFixed(1)} s`}`,
      );
    }
  } finally {
    redis.disconnect();
  }
  console.log('');
  console.log('live handling delay, commit to handler start (ms)');
  console.log('case                                              live   p50     p99     max   backfill drained');
  for (const { c, r } of results) {
    console.log(
      `${c.name.padEnd(48)} ${String(r.live).padStart(5)} ${String(r.p50).padStart(5)} ${String(r.p99).padStart(7)} ${String(r.max).padStart(7)}   ${r.drainSeconds === null ? '-' : `${r.drainSeconds.toFixed(1)} s`}`,
    );
  }
}

await main();
