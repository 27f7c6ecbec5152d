/**
 * The catch-up part of the benchmark: a category of many events already in the store, read from
 * the start. `prefillCatchUpEvents` writes them through the framework's repository, so every
 * record is a real envelope (checksum included) that a subscription can deserialize and handle;
 * `readCategoryThrough` reads them back with the store's reader (pages in reader order, the
 * never-skip rule included), the ceiling any catch-up reaches.
 *
 * Event-store subscription catch-up over the same prefilled events (events/s through a handler,
 * checkpoints included) is measured here, beside the read-through, once packages/server has
 * event-store subscriptions.
 */
import type { EventStore, ReaderCursor, Repository } from '@protean-ts/core';
import { START_CURSOR } from '@protean-ts/core';
import { BenchAccount, benchDomain } from './bench-account.js';

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
        throw new Error(`read ${events} of ${expected} events of ${category}, then nothing for ${patienceMs} ms: an open transaction on the server holds readers back`);
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
