/**
 * The catch-up part of the benchmark: a category of many events already in the store, read from
 * the start. `prefillCatchUpEvents` writes them through the framework's repository, so every
 * record is a real envelope (checksum included) that a subscription can deserialize and handle;
 * `readCategoryThrough` reads them back with the store's reader (pages in reader order, the
 * never-skip rule included), the ceiling any catch-up reaches.
 *
 * `subscriptionCatchUp` runs the same events through an event-store subscription started by the
 * server's Engine: each event handled in a unit of work with its inbox row, the cursor saved.
 */
import type { EventStore, ReaderCursor, Repository } from '@protean-ts/core';
import { START_CURSOR } from '@protean-ts/core';
import { Engine } from '@protean-ts/server';
import { BenchAccount, benchDomain, catchUpProbe } from './bench-account.js';

export interface Prefill {
  streams: number;
  events: number;
  seconds: number;
}

/**
 * `total` events in streams of `perStream` (an opening and deposits, one commit per stream),
 * `concurrency` commits in flight. `total` must be a multiple of `perStream`.
 */
export async function prefillCatchUpEvents(repo: Repository<BenchAccount>, total: number, perStream: number, concurrency: number): Promise<Prefill> {
  if (total % perStream !== 0) throw new Error(`catch-up events (${total}) must be a multiple of the events per stream (${perStream})`);
  const streams = total / perStream;
  let started = 0;
  const begin = performance.now();
  const worker = async (): Promise<void> => {
    while (started < streams) {
      started += 1;
      const account = BenchAccount.withEvents(perStream);
      await benchDomain.uow(async () => void (await repo.add(account)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, streams) }, worker));
  return { streams, events: total, seconds: (performance.now() - begin) / 1000 };
}

/**
 * Reads `category` from the start in pages of `pageSize` until `expected` events came back.
 * A reader sees only transactions that ended before the oldest open one of the whole server
 * (see the store's reader), so an empty page waits briefly instead of ending the read; a read
 * that stays short for `patienceMs` fails, naming what it saw.
 */
export async function readCategoryThrough(
  store: EventStore,
  category: string,
  expected: number,
  pageSize: number,
  patienceMs = 60_000,
): Promise<{ events: number; seconds: number; waitedSeconds: number }> {
  let cursor: ReaderCursor = START_CURSOR;
  let events = 0;
  let stalledSince: number | undefined;
  let waitedMs = 0;
  const begin = performance.now();
  while (events < expected) {
    const page = await store.readCategory(category, { after: cursor, limit: pageSize });
    if (page.events.length === 0) {
      stalledSince ??= performance.now();
      if (performance.now() - stalledSince > patienceMs) {
        throw new Error(
          `read ${events} of ${expected} events of ${category}, then nothing for ${patienceMs} ms: an open transaction on the server holds readers back`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      waitedMs += 50;
      continue;
    }
    stalledSince = undefined;
    events += page.events.length;
    cursor = page.cursor;
  }
  if (events !== expected) throw new Error(`read ${events} events of ${category}, expected ${expected}`);
  // The waits are in `seconds`: they are what a catch-up on this server would have waited too.
  return { events, seconds: (performance.now() - begin) / 1000, waitedSeconds: waitedMs / 1000 };
}

export interface SubscriptionCatchUp {
  events: number;
  /** Handler runs: more than `events` when a unit of work ran again (a conflict) before it committed. */
  runs: number;
  seconds: number;
  duplicates: number;
  concurrency: number;
  readAhead: number;
}

/**
 * Starts an Engine (no health server) whose only subscription is the event-store subscription of
 * CatchUpCounter, reading the category from the start, and times it until the handler has seen
 * `expected` events; then stops it and checks that it saw each.
 */
export async function subscriptionCatchUp(expected: number, patienceMs = 600_000): Promise<SubscriptionCatchUp> {
  catchUpProbe.runs = 0;
  catchUpProbe.events.clear();
  const engine = new Engine(benchDomain, { health: false });
  const begin = performance.now();
  await engine.start();
  try {
    let lastReport = begin;
    // Done when the subscription settled every event (handled and committed), not when the handler saw the last.
    const settled = () => engine.subscriptionStatuses()[0]?.handled ?? 0;
    while (settled() < expected) {
      if (performance.now() - begin > patienceMs) throw new Error(`the subscription handled ${settled()} of ${expected} events in ${patienceMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (performance.now() - lastReport > 5_000) {
        lastReport = performance.now();
        process.stderr.write(`  subscription catch-up: ${settled()}/${expected} events…\n`);
      }
    }
    const seconds = (performance.now() - begin) / 1000;
    const [status] = engine.subscriptionStatuses();
    const { server } = benchDomain.config;
    return {
      events: settled(),
      runs: catchUpProbe.runs,
      seconds,
      duplicates: status?.duplicates ?? 0,
      concurrency: server.stream_subscription.concurrency,
      readAhead: server.messages_per_tick,
    };
  } finally {
    await engine.stop();
    if (catchUpProbe.events.size !== expected) throw new Error(`the handler saw ${catchUpProbe.events.size} distinct events of ${expected}`);
  }
}
