/**
 * bench/hop: one hop of an event-driven application (read from a Redis consumer group, load an
 * aggregate, save it with one outbox row in one transaction, ack) through a framework stream
 * subscription, next to the same hop written by hand with `pg` + `ioredis`, in the same run,
 * over the same prefilled stream, with the same concurrency, pool size and read size. The outbox
 * relay is stopped while rounds run, so only the hop is timed. Per partition-key count, rounds
 * alternate between the sides (each round a consumer group of its own from the stream's start);
 * medians are compared. Statements and Redis commands per message are counted per side.
 *
 *   npm run bench:hop   (env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_MESSAGES (20000),
 *                        BENCH_KEYS (1,8,64), BENCH_ROUNDS (3), BENCH_SIDES (raw,framework),
 *                        BENCH_PROFILE (a directory: a CPU profile of each timed round),
 *                        BENCH_BATCH (1: the framework side's batch_size))
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { configureLogging } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import '@protean-ts/mikro-orm';
import '@protean-ts/redis';
import { frameworkSubscription } from './framework-hop.js';
import { Counter, hopDomain, Source } from './hop-domain.js';
import { prefill } from './prefill.js';
import { RawHop } from './raw-hop.js';
import { profiled } from './round-profiler.js';
import { installCounters, perMessage, since, snapshot, total, type Traffic } from './round-counters.js';
import { deleteRedisKeys } from '../redis-keys.js';

const REDIS_URI = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const KEY_COUNTS = (process.env.BENCH_KEYS ?? '1,8,64').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIDES = (process.env.BENCH_SIDES ?? 'raw,framework').split(',');
const WARM_UP_MESSAGES = Math.min(2_000, MESSAGES);
const TARGET_RATIO = 0.8;
const RAW_COUNTER = 'raw_counter';
const RAW_OUTBOX = 'raw_outbox';

interface RoundResult {
  rate: number;
  cpuMicros: number;
  traffic: Traffic;
}

interface Side {
  label: 'raw' | 'framework';
  /** Handles the whole stream through a new consumer group; resolves once every message is handled. */
  drain(stream: string, group: string, messages: number): Promise<void>;
  /** Checks this side's effects of the round (one counter bump and one outbox row per message) and clears its outbox rows. */
  verify(messages: number): Promise<void>;
}

async function waitUntil(done: () => boolean, what: string, timeoutMs = 900_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function countRows(pool: pg.Pool, sql: string): Promise<number> {
  return (await pool.query<{ n: number }>(sql)).rows[0]!.n;
}

function frameworkSide(pool: pg.Pool, stopping: Promise<void>[]): Side {
  return {
    label: 'framework',
    async drain(stream, group, messages) {
      const subscription = frameworkSubscription(hopDomain, stream, group);
      subscription.start();
      await waitUntil(() => subscription.status().handled + subscription.status().deadLettered >= messages, `the framework to handle ${messages} messages`);
      const status = subscription.status();
      // The loop ends once its blocking read returns; that wait is not the hop's, so it is not timed.
      stopping.push(subscription.stop().then(() => subscription.finished()));
      if (status.deadLettered || status.retried) throw new Error(`framework: ${status.deadLettered} dead-lettered, ${status.retried} retried`);
    },
    async verify(messages) {
      const rows = await countRows(pool, `SELECT count(*)::int AS n FROM protean_outbox WHERE message_type = 'Hop.CounterBumped.v1'`);
      if (rows !== messages) throw new Error(`framework: ${rows} CounterBumped outbox rows, expected ${messages}`);
      await pool.query('DELETE FROM protean_outbox');
    },
  };
}

function rawSide(pool: pg.Pool, redis: Redis, prefix: string, concurrency: number, batch: number): Side {
  return {
    label: 'raw',
    async drain(stream, group, messages) {
      const hop = new RawHop(pool, redis, `${prefix}${stream}`, group, concurrency, batch, { counter: RAW_COUNTER, outbox: RAW_OUTBOX });
      await hop.start();
      await waitUntil(() => hop.handled >= messages || hop.failure !== null, `the raw hop to handle ${messages} messages`);
      await hop.stop();
      if (hop.failure) throw hop.failure;
    },
    async verify(messages) {
      const rows = await countRows(pool, `SELECT count(*)::int AS n FROM ${RAW_OUTBOX}`);
      if (rows !== messages) throw new Error(`raw: ${rows} outbox rows, expected ${messages}`);
      await pool.query(`TRUNCATE ${RAW_OUTBOX}`);
    },
  };
}

async function round(side: Side, stream: string, group: string, messages: number): Promise<RoundResult> {
  const before = snapshot();
  const cpuBefore = process.cpuUsage();
  const begin = performance.now();
  await profiled(group, () => side.drain(stream, group, messages));
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const traffic = since(before);
  await side.verify(messages);
  return { rate: messages / seconds, cpuMicros: (cpu.user + cpu.system) / messages, traffic };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function checkCounters(pool: pg.Pool, sourceIds: string[], expected: Map<string, number>): Promise<void> {
  for (const table of ['counter', RAW_COUNTER]) {
    const sum = await countRows(
      pool,
      `SELECT coalesce(sum(count), 0)::int AS n FROM ${table} WHERE source_id IN (${sourceIds.map((id) => `'${id}'`).join(',')})`,
    );
    const want = expected.get(table) ?? 0;
    if (sum !== want) throw new Error(`${table}: counters sum to ${sum}, expected ${want}`);
  }
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  const tag = randomBytes(4).toString('hex');
  const prefix = `bench:hop:${tag}:`;
  const db = await createTemporaryDatabase({ label: 'pt_bench_hop', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const { name: database, uri } = db;
  const redis = new Redis(REDIS_URI);
  const stopping: Promise<void>[] = [];
  let pool: pg.Pool | undefined;
  try {
    Object.assign(process.env, {
      PT_BENCH_HOP_DATABASE_URI: uri,
      PT_BENCH_HOP_REDIS_URI: REDIS_URI,
      PT_BENCH_HOP_PREFIX: prefix,
      PT_BENCH_HOP_BATCH: process.env.BENCH_BATCH ?? '1',
    });
    await hopDomain.init();
    const { server, databases } = hopDomain.config;
    const { concurrency } = server.stream_subscription;
    const batch = server.messages_per_tick;
    const poolSize = databases.default!.pool_size;
    console.log(
      `bench/hop: database ${database}, Redis prefix ${prefix}; ${MESSAGES} messages per stream, keys ${KEY_COUNTS.join(', ')}, ${ROUNDS} rounds; both sides: concurrency ${concurrency} keys, reads of ${batch}, pool ${poolSize}; inbox ${hopDomain.config.inbox.enabled ? 'on' : 'off'}; framework batch_size ${server.stream_subscription.batch_size} (the raw hop commits each message)`,
    );
    await hopDomain.providers.get('default')!.setupSchema([hopDomain.aggregateSchemaFor(Source), hopDomain.aggregateSchemaFor(Counter)], { outbox: true });
    // Connections held for the whole run: on a shared server, reconnecting between rounds can
    // meet "too many clients" and end the run.
    pool = new pg.Pool({ connectionString: uri, max: poolSize, idleTimeoutMillis: 0 });
    pool.on('error', () => undefined);
    const held = await Promise.all(Array.from({ length: poolSize }, () => pool!.connect()));
    for (const client of held) client.release();
    await pool.query(`CREATE TABLE ${RAW_COUNTER} (LIKE counter INCLUDING ALL)`);
    await pool.query(`CREATE TABLE ${RAW_OUTBOX} (LIKE protean_outbox INCLUDING ALL)`);
    installCounters();
    const all = [rawSide(pool, redis, prefix, concurrency, batch), frameworkSide(pool, stopping)];
    const sides = all.filter((side) => SIDES.includes(side.label));

    console.log(`warming up (${WARM_UP_MESSAGES} messages over 8 keys, once per side)…`);
    const warm = await prefill(hopDomain, redis, pool, { keys: 8, messages: WARM_UP_MESSAGES, prefix, rawCounter: RAW_COUNTER });
    for (const side of sides) await round(side, warm.stream, `warm-${side.label}`, WARM_UP_MESSAGES);

    const summary: { keys: number; results: Map<string, RoundResult[]> }[] = [];
    for (const keys of KEY_COUNTS) {
      const filled = await prefill(hopDomain, redis, pool, { keys, messages: MESSAGES, prefix, rawCounter: RAW_COUNTER });
      const results = new Map<string, RoundResult[]>(sides.map((side) => [side.label, []]));
      for (let r = 1; r <= ROUNDS; r++) {
        const line: string[] = [];
        for (const side of r % 2 ? sides : [...sides].reverse()) {
          const result = await round(side, filled.stream, `${side.label}-k${keys}-r${r}`, MESSAGES);
          results.get(side.label)!.push(result);
          line.push(`${side.label} ${result.rate.toFixed(0)}/s (${result.cpuMicros.toFixed(0)} µs CPU/msg)`);
        }
        console.log(`  ${keys} key(s), round ${r}/${ROUNDS}: ${line.join(', ')}`);
      }
      const rounds = new Map(sides.map((side) => [side.label === 'raw' ? RAW_COUNTER : 'counter', ROUNDS * MESSAGES]));
      await checkCounters(pool, filled.sourceIds, rounds);
      summary.push({ keys, results });
    }

    console.log('');
    console.log(`messages per second (median of ${ROUNDS} rounds of ${MESSAGES}); client CPU per message; ratio framework / raw (aim ≥ ${TARGET_RATIO})`);
    console.log('keys     raw msg/s   framework msg/s   CPU/msg raw → framework   ratio');
    for (const { keys, results } of summary) {
      const raw = results.get('raw');
      const framework = results.get('framework');
      const rate = (r: RoundResult[] | undefined) => (r ? median(r.map((x) => x.rate)) : NaN);
      const cpu = (r: RoundResult[] | undefined) => (r ? median(r.map((x) => x.cpuMicros)) : NaN);
      const ratio = rate(framework) / rate(raw);
      console.log(
        `${String(keys).padEnd(6)} ${rate(raw).toFixed(0).padStart(10)} ${rate(framework).toFixed(0).padStart(17)}   ${`${cpu(raw).toFixed(0)} µs → ${cpu(framework).toFixed(0)} µs`.padStart(22)}   ${ratio.toFixed(2)}${Number.isFinite(ratio) ? (ratio >= TARGET_RATIO ? '' : '  BELOW the aim') : ''}`,
      );
    }
    console.log('');
    console.log('sent per message (last round of the last key count):');
    const last = summary[summary.length - 1]!;
    for (const [label, results] of last.results) {
      const { statements, commands } = results[results.length - 1]!.traffic;
      console.log(`  ${label.padEnd(9)} ${(total(statements) / MESSAGES).toFixed(2)} SQL statements: ${perMessage(statements, MESSAGES)}`);
      console.log(`  ${''.padEnd(9)} ${(total(commands) / MESSAGES).toFixed(2)} Redis commands: ${perMessage(commands, MESSAGES)}`);
    }
  } finally {
    await hopDomain.close().catch(() => undefined);
    await Promise.allSettled(stopping);
    await pool?.end();
    await deleteRedisKeys(redis, prefix);
    redis.disconnect();
    await db.drop();
  }
}

await main();
