/**
 * bench/outbox: how fast the framework relays the outbox to the broker (`--broker
 * redis|nats|rabbitmq`, default redis), next to a raw `pg` + broker-client claim/publish/mark loop
 * in the same run. Throughput from an empty table and with many published rows present (rounds
 * alternate between the two sides; medians compared), then commit-to-publish latency with commits
 * paced at a fixed rate, measured where a plain consumer sees each message.
 *
 *   npm run bench:outbox [-- --broker nats|rabbitmq]
 *   env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_NATS_URL, BENCH_RABBITMQ_URL, BENCH_MESSAGES,
 *        BENCH_KEYS, BENCH_ROUNDS, BENCH_BATCH, BENCH_PUBLISHED_ROWS, BENCH_RATE,
 *        BENCH_LATENCY_SECONDS, BENCH_RAW_IDLE_MS
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { configureLogging, defaultConfig } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { OutboxProcessor } from '@protean-ts/outbox';
import { median, percentile } from './latency-stats.js';
import { BENCH_STREAM, benchRow, type BenchRow } from './bench-rows.js';
import { producePaced } from './paced-producer.js';
import { commitRaw, createRawTable, RAW_TABLE, RawRelay } from './raw-relay.js';
import { selectBenchBroker, type BenchBroker, type RawPublisher } from '../brokers/bench-broker.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const PUBLISHED_ROWS = Number(process.env.BENCH_PUBLISHED_ROWS ?? 500_000);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 10);
const RAW_IDLE_MS = Number(process.env.BENCH_RAW_IDLE_MS ?? 5);
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 20;
const BROKER = 'bench';

interface Side {
  label: string;
  /** Commits rows (one transaction) on this side's table. */
  commit(rows: readonly BenchRow[]): Promise<void>;
  /** Starts relaying to streams under `prefix`; resolves to the function that stops it. */
  relay(prefix: string): Promise<() => Promise<void>>;
}

// Each side commits through one pool and relays through another, as an application and the
// `protean-ts server` process do: commits in flight never queue the relay's statements.
function frameworkSide(provider: PostgresProvider, relayProvider: PostgresProvider, bench: BenchBroker): Side {
  return {
    label: 'framework',
    commit: async (rows) => {
      const tx = await provider.begin();
      await provider.outbox.append(tx, rows);
      await tx.commit();
    },
    relay: async (prefix) => {
      const broker = bench.frameworkBroker(BROKER, prefix);
      await broker.connect();
      const config = { ...defaultConfig().outbox, broker: BROKER, messages_per_tick: BATCH, tick_interval: 1 };
      const processor = new OutboxProcessor({ name: 'bench', store: relayProvider.outbox, broker, config, workerId: `bench-${process.pid}` });
      await processor.start();
      return async () => {
        await processor.stop();
        await broker.close();
      };
    },
  };
}

function rawSide(pool: pg.Pool, relayPool: pg.Pool, publisher: RawPublisher, bench: BenchBroker): Side {
  return {
    label: `raw pg+${bench.rawClient}`,
    commit: (rows) => commitRaw(pool, rows),
    relay: async (prefix) => {
      const relay = new RawRelay(relayPool, publisher, prefix, BATCH, RAW_IDLE_MS);
      relay.start();
      return () => relay.stop();
    },
  };
}

/** Commits `MESSAGES` rows (500 per commit), then times one relay draining them into the broker. */
async function throughputRound(side: Side, bench: BenchBroker, tag: string): Promise<number> {
  for (let i = 0; i < MESSAGES; i += 500) {
    await side.commit(Array.from({ length: Math.min(500, MESSAGES - i) }, (_, j) => benchRow(i + j, KEYS, BROKER, tag)));
  }
  const prefix = bench.newPrefix('outbox');
  const watcher = await bench.watch(prefix, BENCH_STREAM);
  const begin = performance.now();
  const stop = await side.relay(prefix);
  await watcher.waitFor(MESSAGES, 300_000);
  const seconds = (performance.now() - begin) / 1000;
  await stop();
  await watcher.close();
  if (watcher.arrivals.size !== MESSAGES) throw new Error(`${side.label}: ${watcher.arrivals.size} distinct messages arrived, expected ${MESSAGES}`);
  await bench.drop(prefix);
  return MESSAGES / seconds;
}

async function throughputPhase(title: string, sides: Side[], bench: BenchBroker): Promise<Map<string, number>> {
  const rates = new Map<string, number[]>(sides.map((s) => [s.label, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    const line: string[] = [];
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      const rate = await throughputRound(side, bench, `${title.length}-${round}-${randomBytes(2).toString('hex')}`);
      rates.get(side.label)!.push(rate);
      line.push(`${side.label} ${rate.toFixed(0)}/s`);
    }
    console.log(`  ${title}, round ${round}/${ROUNDS}: ${line.join(', ')}`);
  }
  return new Map([...rates].map(([label, values]) => [label, median(values)]));
}

/** Commits one row per transaction at `RATE`/s; latency = first sight by a plain consumer − commit returned. */
async function latencyRun(side: Side, bench: BenchBroker): Promise<number[]> {
  const total = RATE * LATENCY_SECONDS;
  const prefix = bench.newPrefix('outbox');
  const watcher = await bench.watch(prefix, BENCH_STREAM);
  const stop = await side.relay(prefix);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const tag = `lat-${randomBytes(3).toString('hex')}`;
  const committed = await producePaced(RATE, total, async (i) => {
    const row = benchRow(i, total, BROKER, tag);
    await side.commit([row]);
    return row.messageId;
  });
  await watcher.waitFor(total, 120_000);
  await stop();
  await watcher.close();
  await bench.drop(prefix);
  return [...committed].map(([id, at]) => watcher.arrivals.get(id)! - at);
}

/** One INSERT … SELECT generate_series per table: the rows are written by the server, nothing crosses the wire. */
async function preloadPublished(pool: pg.Pool, count: number): Promise<void> {
  for (const table of ['protean_outbox', RAW_TABLE]) {
    // Only the framework's table has max_retries; everything else is the same row.
    const [retryColumn, retryValue] = table === RAW_TABLE ? ['', ''] : [', max_retries', ', 5'];
    await pool.query(
      `INSERT INTO ${table} (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, status, published_at${retryColumn})
       SELECT gen_random_uuid()::text, $1, 'bench::order-old-' || (g % 50000), g, 'Bench.OrderPlaced.v1',
         jsonb_build_object('orderId', g, 'customer', 'Ann', 'total', 125.5),
         jsonb_build_object('headers', jsonb_build_object('id', g::text, 'type', 'Bench.OrderPlaced.v1'), 'pad', repeat('x', 400)),
         $2, 'published', now() - interval '1 hour'${retryValue}
       FROM generate_series(1, $3::int) g`,
      [BENCH_STREAM, BROKER, count],
    );
    await pool.query(`ANALYZE ${table}`);
  }
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  const bench = await selectBenchBroker();
  const db = await createTemporaryDatabase({ label: 'pt_bench_outbox', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const uri = db.uri;
  console.log(
    `bench/outbox: broker ${bench.kind}; database ${db.name}; ${MESSAGES} messages over ${KEYS} keys per round, batch ${BATCH}, ${ROUNDS} rounds; one relay per side`,
  );
  const provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: uri, managed: true, pool_size: 10 });
  const relayProvider = new PostgresProvider('default', { provider: 'postgresql', database_uri: uri, managed: true, pool_size: 5 });
  const pool = new pg.Pool({ connectionString: uri, max: 10 });
  const relayPool = new pg.Pool({ connectionString: uri, max: 5 });
  // pool.end() resolves before its connections have closed: the DROP DATABASE … WITH (FORCE) at
  // the end may still terminate one, which its idle client reports as an error on the pool.
  for (const p of [pool, relayPool])
    p.on('error', (err: Error & { code?: string }) => {
      if (err.code !== '57P01') throw err;
    });
  const publisher = await bench.rawPublisher();
  try {
    await provider.setupOutbox();
    await createRawTable(pool);
    // Statistics gathered on empty tables, as after a deploy: the claim must not degrade when rows pour in.
    await pool.query(`ANALYZE protean_outbox; ANALYZE ${RAW_TABLE}`);
    const sides = [rawSide(pool, relayPool, publisher, bench), frameworkSide(provider, relayProvider, bench)];

    console.log('warming up…');
    for (const side of sides) await latencyRunWarm(side, bench);

    const empty = await throughputPhase('empty table', sides, bench);
    console.log(`preloading ${PUBLISHED_ROWS} published rows into each table…`);
    await preloadPublished(pool, PUBLISHED_ROWS);
    const loaded = await throughputPhase(`${PUBLISHED_ROWS} published rows`, sides, bench);

    console.log(`latency: one commit per event at ${RATE}/s for ${LATENCY_SECONDS} s (raw loop polls every ${RAW_IDLE_MS} ms when idle)…`);
    const latencies = new Map<string, number[]>();
    for (const side of sides) latencies.set(side.label, await latencyRun(side, bench));

    console.log('');
    console.log(`relayed messages per second to ${bench.kind} (median of ${ROUNDS} rounds, ${MESSAGES} messages each)`);
    for (const [title, rates] of [
      ['empty table', empty],
      [`with ${PUBLISHED_ROWS} published rows`, loaded],
    ] as const) {
      const raw = rates.get(sides[0]!.label)!;
      const framework = rates.get('framework')!;
      const ratio = framework / raw;
      console.log(
        `  ${title.padEnd(32)} raw ${raw.toFixed(0).padStart(6)}/s   framework ${framework.toFixed(0).padStart(6)}/s   ratio ${ratio.toFixed(2)} ${ratio >= TARGET_RATIO ? '(meets' : '(BELOW'} the ${TARGET_RATIO} aim)`,
      );
    }
    console.log(`commit-to-publish latency at ${RATE} events/s (${RATE * LATENCY_SECONDS} events, seen by a plain ${bench.kind} consumer)`);
    for (const [label, samples] of latencies) {
      const p99 = percentile(samples, 99);
      const aim = label === 'framework' ? ` ${p99 < TARGET_P99_MS ? '(meets' : '(MISSES'} the p99 < ${TARGET_P99_MS} ms aim)` : '';
      console.log(`  ${label.padEnd(16)} p50 ${ms(percentile(samples, 50))}   p99 ${ms(p99)}   max ${ms(Math.max(...samples))}${aim}`);
    }
  } finally {
    await provider.close();
    await relayProvider.close();
    await pool.end();
    await relayPool.end();
    await publisher.close();
    await db.drop();
  }
}

/** A short paced run per side, so JIT, pools and connections are warm before anything is timed. */
async function latencyRunWarm(side: Side, bench: BenchBroker): Promise<void> {
  const prefix = bench.newPrefix('outbox');
  const watcher = await bench.watch(prefix, BENCH_STREAM);
  const stop = await side.relay(prefix);
  const committed = await producePaced(RATE, RATE, async (i) => {
    const row = benchRow(i, RATE, BROKER, `warm-${randomBytes(3).toString('hex')}`);
    await side.commit([row]);
    return row.messageId;
  });
  await watcher.waitFor(committed.size, 60_000);
  await stop();
  await watcher.close();
  await bench.drop(prefix);
}

await main();
