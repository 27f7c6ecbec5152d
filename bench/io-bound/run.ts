/**
 * bench/io-bound: a handler that awaits 20 ms of simulated I/O and does nothing else, through a
 * framework stream subscription exactly as the Engine builds it (inbox on), at several
 * `[server.stream_subscription] concurrency` settings. One process with up to `concurrency` keys
 * in flight can at best handle concurrency × 50 messages/s; the case shows how close it comes.
 * Each case drains a stream prefilled the way an application fills it, over more keys than the
 * highest concurrency, through a consumer group of its own.
 *
 *   npm run bench:io   (env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_CONCURRENCY (1,8,32),
 *                       BENCH_SECONDS (4: messages per case = concurrency × 50 × this, at least 100),
 *                       BENCH_KEYS (256), BENCH_ROUNDS (1), BENCH_POOL_SIZE (10: the database pool,
 *                       which each message's transaction holds while its handler waits))
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { configureLogging, getLogger } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import '@protean-ts/mikro-orm';
import '@protean-ts/redis';
import { createStreamSubscription } from '@protean-ts/server';
import { IO_WAIT_MS, ioDomain, RemoteCaller, Source } from './io-domain.js';
import { prefill } from './prefill.js';
import { deleteRedisKeys } from '../redis-keys.js';

const REDIS_URI = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '1,8,32').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const KEYS = Number(process.env.BENCH_KEYS ?? 256);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** The issue's aim: at least this share of the ideal concurrency × (1000 / IO_WAIT_MS). */
const TARGET_SHARE = 0.8;
const STALL_MS = 60_000;
const WARM_UP = { messages: 200, concurrency: 8 };

interface CaseResult {
  rate: number;
  cpuMicros: number;
}

/** Drains `stream` through a new consumer group with `concurrency` keys at once; times it. */
async function drain(stream: string, group: string, messages: number, concurrency: number): Promise<CaseResult> {
  const { server } = ioDomain.config;
  const broker = ioDomain.runtime.infrastructure.broker(ioDomain.config.outbox.broker);
  const subscription = createStreamSubscription({
    domain: ioDomain,
    handler: RemoteCaller,
    group,
    stream,
    broker,
    consumer: `bench-${process.pid}`,
    settings: { ...server.stream_subscription, concurrency },
    batchSize: server.messages_per_tick,
    tickIntervalMs: server.tick_interval * 1000,
    // As the Engine sets it.
    reclaimIntervalMs: Math.min(30_000, Math.max(1_000, broker.claimIdleMs / 2)),
    logger: getLogger('server', { bench: 'io-bound' }),
  });
  const cpuBefore = process.cpuUsage();
  const begin = performance.now();
  subscription.start();
  let last = 0;
  let movedAt = begin;
  for (;;) {
    const { handled, deadLettered, retried } = subscription.status();
    if (deadLettered || retried) throw new Error(`${group}: ${deadLettered} dead-lettered, ${retried} retried; the handler only waits, so none should`);
    if (handled >= messages) break;
    if (handled !== last) [last, movedAt] = [handled, performance.now()];
    if (performance.now() - movedAt > STALL_MS) throw new Error(`${group}: ${handled} of ${messages} messages handled, none for ${STALL_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  // The loop ends once its blocking read returns; that wait is not the handling's, so it is not timed.
  await subscription.stop();
  await subscription.finished();
  return { rate: messages / seconds, cpuMicros: (cpu.user + cpu.system) / messages };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  const tag = randomBytes(4).toString('hex');
  const prefix = `bench:io:${tag}:`;
  const db = await createTemporaryDatabase({ label: 'pt_bench_io', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const redis = new Redis(REDIS_URI);
  let pool: pg.Pool | undefined;
  try {
    Object.assign(process.env, { PT_BENCH_IO_DATABASE_URI: db.uri, PT_BENCH_IO_REDIS_URI: REDIS_URI, PT_BENCH_IO_PREFIX: prefix });
    if (process.env.BENCH_POOL_SIZE) process.env.PT_BENCH_IO_POOL_SIZE = process.env.BENCH_POOL_SIZE;
    await ioDomain.init();
    const poolSize = ioDomain.config.databases.default!.pool_size;
    const perSecond = 1000 / IO_WAIT_MS;
    console.log(
      `bench/io-bound: database ${db.name}, Redis prefix ${prefix}; handler waits ${IO_WAIT_MS} ms; concurrency ${CONCURRENCIES.join(', ')}; ${KEYS} keys; ~${SECONDS} s of ideal work per case; ${ROUNDS} round(s); pool ${poolSize}, reads of ${ioDomain.config.server.messages_per_tick}; inbox ${ioDomain.config.inbox.enabled ? 'on' : 'off'}`,
    );
    await ioDomain.providers.get('default')!.setupSchema([ioDomain.aggregateSchemaFor(Source)], { outbox: true });
    pool = new pg.Pool({ connectionString: db.uri, max: 2 });
    // Compiles the hot paths before the first timed case, so it does not pay for that alone.
    const warm = await prefill(ioDomain, redis, pool, { keys: KEYS, messages: WARM_UP.messages, prefix, name: 'iobound::source:warm' });
    await drain(warm, 'io-warm', WARM_UP.messages, WARM_UP.concurrency);

    const summary: { concurrency: number; messages: number; results: CaseResult[] }[] = [];
    for (const concurrency of CONCURRENCIES) {
      const messages = Math.max(100, Math.round(concurrency * perSecond * SECONDS));
      const stream = await prefill(ioDomain, redis, pool, { keys: KEYS, messages, prefix, name: `iobound::source:c${concurrency}` });
      const results: CaseResult[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const result = await drain(stream, `io-c${concurrency}-r${round}`, messages, concurrency);
        results.push(result);
        console.log(
          `  concurrency ${concurrency}, round ${round}/${ROUNDS}: ${result.rate.toFixed(0)} msg/s of ${messages} (${result.cpuMicros.toFixed(0)} µs CPU/msg)`,
        );
      }
      summary.push({ concurrency, messages, results });
    }

    console.log('');
    console.log(
      `handled messages per second (median of ${ROUNDS} round(s)) against the ideal concurrency × ${perSecond} (aim ≥ ${TARGET_SHARE} of it); process CPU per message`,
    );
    console.log('concurrency  messages   msg/s    ideal   share   CPU/msg');
    for (const { concurrency, messages, results } of summary) {
      const rate = median(results.map((r) => r.rate));
      const ideal = concurrency * perSecond;
      const share = rate / ideal;
      console.log(
        `${String(concurrency).padEnd(11)} ${String(messages).padStart(9)} ${rate.toFixed(0).padStart(7)} ${ideal.toFixed(0).padStart(8)} ${share.toFixed(2).padStart(7)} ${`${median(results.map((r) => r.cpuMicros)).toFixed(0)} µs`.padStart(9)}${share >= TARGET_SHARE ? '' : '  BELOW the aim'}`,
      );
    }
  } finally {
    await ioDomain.close().catch(() => undefined);
    await pool?.end();
    await deleteRedisKeys(redis, prefix);
    redis.disconnect();
    await db.drop();
  }
}

await main();
