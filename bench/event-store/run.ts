/**
 * bench/event-store: the PostgreSQL event store through the framework, in one run.
 * 1. Appends: new event-sourced aggregates of 1 and of 10 events per commit through
 *    `domain.uow(() => repo.add(account))` (outbox OFF, so only the event store is measured)
 *    against raw node-postgres writing the same rows with the same expected-version check, same
 *    pool size, same callers in flight. Rounds alternate sides; medians and the ratio are printed.
 * 2. Loads of an aggregate of 1,000 events: replaying its stream vs from a snapshot (ms).
 * 3. Catch-up over 200,000 prefilled events: the store's category read-through, and an
 *    event-store subscription handling them (events/s).
 *
 *   npm run bench:event-store    (env: see bench/README.md)
 */
import pg from 'pg';
import { configureLogging, EventSourcedRepository } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { installCounters, perMessage, since, snapshot, total, type Traffic } from '../hop/round-counters.js';
import { profiled } from '../hop/round-profiler.js';
import { measure, median, type Measurement } from '../persistence/measure.js';
import { assertNoSnapshot, prepareLoadAccounts, timeLoads } from './aggregate-loads.js';
import { BenchAccount, benchDomain } from './bench-account.js';
import { prefillCatchUpEvents, readCategoryThrough, subscriptionCatchUp } from './catch-up.js';
import { RAW_EVENTS, RAW_STREAMS, RawAppender, storedCounts } from './raw-appender.js';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return value;
};
const COMMITS = env('BENCH_COMMITS', 5000);
const ROUNDS = env('BENCH_ROUNDS', 5);
const CONCURRENCY = env('BENCH_CONCURRENCY', 20);
const POOL_SIZE = env('BENCH_POOL_SIZE', 10);
const LOAD_EVENTS = env('BENCH_LOAD_EVENTS', 1000);
const LOADS = env('BENCH_LOADS', 21);
const CATCH_UP_EVENTS = env('BENCH_CATCH_UP_EVENTS', 200_000);
const CATCH_UP_PER_STREAM = env('BENCH_CATCH_UP_PER_STREAM', 1000);
const CATCH_UP_PAGE = env('BENCH_CATCH_UP_PAGE', 1000);
/** The catch-up subscription's read-ahead (`server.messages_per_tick`) and streams at once (`concurrency`); defaults as shipped. */
const CATCH_UP_READ_AHEAD = env('BENCH_CATCH_UP_READ_AHEAD', 100);
const CATCH_UP_CONCURRENCY = env('BENCH_CATCH_UP_CONCURRENCY', 32);
const EVENTS_PER_COMMIT = [1, 10];
const WARM_UP = Math.min(1000, COMMITS);
const TARGET_RATIO = 0.7;
const CATEGORY = 'bench::bench_account';
// The PostgreSQL event store's tables (packages/mikro-orm/src/event-store/event-store-tables.ts), in the bench's own database.
const STORE = {
  events: 'protean_events',
  streams: 'protean_event_streams',
  snapshots: 'protean_snapshots',
  subscriptions: 'protean_event_store_subscriptions',
  inbox: 'protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages',
};

function report(label: string, runs: Measurement[], eventsPerCommit: number): number {
  const rate = median(runs.map((m) => m.rate));
  const cpu = median(runs.map((m) => m.cpuMicros));
  console.log(`  ${label} ${rate.toFixed(0)} commits/s, ${(rate * eventsPerCommit).toFixed(0)} events/s (medians), ${cpu.toFixed(0)} µs client CPU per commit`);
  return rate;
}

/** Appends of `eventsPerCommit` events per new stream, both sides, rounds alternating; returns the ratio framework / raw. */
async function appendRounds(eventsPerCommit: number, repo: EventSourcedRepository<BenchAccount>, raw: RawAppender): Promise<number> {
  const framework = () => benchDomain.uow(async () => void (await repo.add(BenchAccount.withEvents(eventsPerCommit))));
  const rawCommit = () => raw.appendNewStream(eventsPerCommit);
  console.log(`append, ${eventsPerCommit} event(s) per commit: warming up…`);
  await measure(WARM_UP, CONCURRENCY, rawCommit);
  await measure(WARM_UP, CONCURRENCY, framework);
  const raws: Measurement[] = [];
  const frameworks: Measurement[] = [];
  let rawTraffic: Traffic | undefined;
  let frameworkTraffic: Traffic | undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    const beforeRaw = snapshot();
    // BENCH_PROFILE=<dir>: a CPU profile of each timed round (bench/hop/profile-summary.ts reads it).
    const r = await profiled(`raw-${eventsPerCommit}-r${round}`, () => measure(COMMITS, CONCURRENCY, rawCommit));
    rawTraffic = since(beforeRaw);
    const beforeFramework = snapshot();
    const f = await profiled(`framework-${eventsPerCommit}-r${round}`, () => measure(COMMITS, CONCURRENCY, framework));
    frameworkTraffic = since(beforeFramework);
    raws.push(r);
    frameworks.push(f);
    console.log(
      `  round ${round}/${ROUNDS}: raw pg ${r.rate.toFixed(0)} commits/s, framework ${f.rate.toFixed(0)} commits/s, ratio ${(f.rate / r.rate).toFixed(2)}`,
    );
  }
  const ratio = report('framework:', frameworks, eventsPerCommit) / report('raw pg:   ', raws, eventsPerCommit);
  // A burst of load from outside hits one round of one side; the median of the rounds' own ratios shows how far that moved the ratio of medians.
  const roundRatios = frameworks.map((f, i) => f.rate / raws[i]!.rate);
  for (const [label, traffic] of [
    ['framework:', frameworkTraffic!],
    ['raw pg:   ', rawTraffic!],
  ] as const) {
    console.log(
      `  ${label} ${(total(traffic.statements) / COMMITS).toFixed(2)} statements per commit (last round): ${perMessage(traffic.statements, COMMITS)}`,
    );
  }
  console.log(
    `  ratio:      ${ratio.toFixed(2)} (target >= ${TARGET_RATIO})${ratio >= TARGET_RATIO ? '' : '  BELOW TARGET'}; median of the rounds' ratios ${median(roundRatios).toFixed(2)}`,
  );
  return ratio;
}

/** Every commit of both sides is stored: one stream per commit, gapless positions matching the stream's version. */
async function checkAppends(check: pg.Pool, events: string, streams: string): Promise<void> {
  const commits = EVENTS_PER_COMMIT.length * (ROUNDS * COMMITS + WARM_UP);
  const expectedEvents = EVENTS_PER_COMMIT.reduce((sum, n) => sum + n * (ROUNDS * COMMITS + WARM_UP), 0);
  for (const [side, tables] of [
    ['framework', [events, streams]],
    ['raw pg', [RAW_EVENTS, RAW_STREAMS]],
  ] as const) {
    const stored = await storedCounts(check, tables[0], tables[1]);
    if (stored.events !== expectedEvents || stored.streams !== commits || stored.inconsistent !== 0) {
      throw new Error(`${side}: expected ${expectedEvents} events in ${commits} consistent streams, found ${JSON.stringify(stored)}`);
    }
  }
  console.log(`checked: each side stored ${expectedEvents} events in ${commits} streams, positions gapless and matching each stream's version`);
}

async function loadSection(repo: EventSourcedRepository<BenchAccount>, provider: PostgresProvider): Promise<void> {
  console.log(`load of an aggregate of ${LOAD_EVENTS} events, ${LOADS} loads each:`);
  const ids = await prepareLoadAccounts(repo, LOAD_EVENTS);
  await timeLoads(repo, ids, LOAD_EVENTS, 2); // warm-up
  const times = await timeLoads(repo, ids, LOAD_EVENTS, LOADS);
  await assertNoSnapshot(provider.eventStore, CATEGORY, ids.replayed);
  const [replay, snapshot] = [median(times.replayMs), median(times.snapshotMs)];
  console.log(
    `  replaying all ${LOAD_EVENTS} events: ${replay.toFixed(1)} ms per load (median; min ${Math.min(...times.replayMs).toFixed(1)}, max ${Math.max(...times.replayMs).toFixed(1)})`,
  );
  console.log(
    `  from a snapshot at the head:  ${snapshot.toFixed(1)} ms per load (median; min ${Math.min(...times.snapshotMs).toFixed(1)}, max ${Math.max(...times.snapshotMs).toFixed(1)}), ${(replay / snapshot).toFixed(1)}x faster`,
  );
}

/**
 * Catch-up over CATCH_UP_EVENTS events of one category. The event store is emptied first, so the
 * category holds exactly the prefilled events: first the store's read-through (the ceiling), then
 * an event-store subscription handling every one of them.
 */
async function catchUpSection(repo: EventSourcedRepository<BenchAccount>, provider: PostgresProvider, check: pg.Pool): Promise<void> {
  await check.query(`TRUNCATE ${STORE.events}, ${STORE.streams}, ${STORE.snapshots}, ${STORE.subscriptions}, ${STORE.inbox}`);
  console.log(`catch-up over ${CATCH_UP_EVENTS} events (${CATCH_UP_PER_STREAM} per stream), prefilling through the repository…`);
  const prefill = await prefillCatchUpEvents(repo, CATCH_UP_EVENTS, CATCH_UP_PER_STREAM, Math.min(CONCURRENCY, POOL_SIZE));
  const stored = await storedCounts(check, STORE.events, STORE.streams);
  if (stored.events !== prefill.events || stored.streams !== prefill.streams || stored.inconsistent !== 0) {
    throw new Error(`prefill: expected ${prefill.events} events in ${prefill.streams} consistent streams, found ${JSON.stringify(stored)}`);
  }
  console.log(`  prefill: ${prefill.events} events in ${prefill.streams} commits, ${(prefill.events / prefill.seconds).toFixed(0)} events/s`);
  const read = await readCategoryThrough(provider.eventStore, CATEGORY, prefill.events, CATCH_UP_PAGE);
  const waited = read.waitedSeconds > 0 ? `, of which ${read.waitedSeconds.toFixed(1)} s waiting for older transactions on the server to end` : '';
  console.log(
    `  category read-through (store.readCategory, pages of ${CATCH_UP_PAGE}): ${(read.events / read.seconds).toFixed(0)} events/s (${read.seconds.toFixed(1)} s${waited})`,
  );
  const sub = await profiled('subscription-catch-up', () => subscriptionCatchUp(prefill.events));
  const [cursor] = (
    await check.query<{ position: string }>(`SELECT cursor_global_position::text AS position FROM ${STORE.subscriptions} WHERE subscription = 'CatchUp'`)
  ).rows;
  const [head] = (await check.query<{ position: string }>(`SELECT max(global_position)::text AS position FROM ${STORE.events}`)).rows;
  if (cursor?.position !== head?.position) throw new Error(`the subscription's saved cursor ${cursor?.position} is not the head ${head?.position}`);
  console.log(
    `  event-store subscription (Engine, handler in a unit of work with its inbox row; concurrency ${sub.concurrency}, read-ahead ${sub.readAhead}): ${(sub.events / sub.seconds).toFixed(0)} events/s (${sub.seconds.toFixed(1)} s; ${sub.runs} handler runs for ${sub.events} events, ${sub.duplicates} duplicates; cursor saved at the head)`,
  );
  console.log(`  subscription / read-through: ${(sub.events / sub.seconds / (read.events / read.seconds)).toFixed(2)}`);
}

async function main(): Promise<void> {
  const db = await createTemporaryDatabase({ label: 'pt_bench', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const uri = db.uri;
  console.log(
    `bench/event-store: database ${db.name}, ${COMMITS} commits x ${ROUNDS} rounds per side, concurrency ${CONCURRENCY}, pool_size ${POOL_SIZE}, outbox off`,
  );
  const raw = new RawAppender(uri, POOL_SIZE);
  const check = new pg.Pool({ connectionString: uri, max: 1 });
  check.on('error', () => undefined);
  const restoreLogging = configureLogging({ sink: () => {} });
  installCounters();
  try {
    // bench/event-store/domain.toml turns the outbox off; no load replays a million events.
    process.env.PT_BENCH_DATABASE_URI = uri;
    await benchDomain.init({
      config: {
        databases: { default: { pool_size: POOL_SIZE } },
        snapshot_threshold: 1_000_000,
        server: { messages_per_tick: CATCH_UP_READ_AHEAD, stream_subscription: { concurrency: CATCH_UP_CONCURRENCY } },
      },
    });
    if (benchDomain.outboxEnabled) throw new Error('the outbox must be off for this benchmark');
    const provider = benchDomain.providers.get('default') as PostgresProvider;
    // The event store and the inbox (the catch-up subscription records each event there).
    await provider.setupOutbox();
    await raw.createTables(STORE.events, STORE.streams);
    const repo = benchDomain.repositoryFor(BenchAccount);
    if (!(repo instanceof EventSourcedRepository)) throw new Error('BenchAccount must be event-sourced');

    const ratios: number[] = [];
    for (const n of EVENTS_PER_COMMIT) ratios.push(await appendRounds(n, repo, raw));
    await checkAppends(check, STORE.events, STORE.streams);
    await loadSection(repo, provider);
    await catchUpSection(repo, provider, check);
    console.log(
      `append ratios framework / raw: ${EVENTS_PER_COMMIT.map((n, i) => `${n} event(s) per commit ${ratios[i]!.toFixed(2)}`).join(', ')} (target >= ${TARGET_RATIO})`,
    );
  } finally {
    await benchDomain.close();
    await raw.close();
    await check.end();
    await db.drop();
    configureLogging(restoreLogging);
  }
}

await main();
