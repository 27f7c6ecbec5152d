/**
 * Helpers of the event store conformance suites: unique categories per test (so tests sharing a
 * database never see each other's events), event factories, and readers that follow a category
 * to its head. Readers may lag behind commits on PostgreSQL while any transaction older than
 * the commit is still open (that is the never-skip rule at work), so positive checks poll.
 */
import { randomUUID } from 'node:crypto';
import { type ProviderTransaction, type EventStore, START_CURSOR, type NewEvent, type ReaderCursor, type StoredEvent } from '@protean-ts/core';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh category (`conformance::c<random>`) and the streams and events of one test. */
export class EventFactory {
  readonly category = `conformance::c${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  private count = 0;

  stream(id: string = randomUUID()): string {
    return `${this.category}-${id}`;
  }

  events(n: number, label = 'e'): NewEvent[] {
    return Array.from({ length: n }, () => {
      this.count += 1;
      return {
        messageId: randomUUID(),
        type: 'Conformance.Happened.v1',
        data: { label, n: this.count, nested: { list: [1, 'two', null], flag: true } },
        metadata: { headers: { id: `h-${this.count}` }, domain: { correlationId: 'corr-1', expectedVersion: this.count - 1 } },
      };
    });
  }
}

/** Opens a transaction on `begin`, runs `work`, commits; rolls back and rethrows on failure. */
export async function inTransaction<R>(begin: () => Promise<ProviderTransaction>, work: (tx: ProviderTransaction) => Promise<R>): Promise<R> {
  const tx = await begin();
  try {
    const result = await work(tx);
    await tx.commit();
    return result;
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

/** Reads `category` page by page from `after` until a page comes back empty. */
export async function readToHead(
  store: EventStore,
  category: string,
  after: ReaderCursor = START_CURSOR,
  limit = 100,
): Promise<{ events: StoredEvent[]; cursor: ReaderCursor }> {
  const events: StoredEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readCategory(category, { after: cursor, limit });
    if (page.events.length === 0) return { events, cursor };
    events.push(...page.events);
    cursor = page.cursor;
  }
}

/** Polls `check` until it returns true, failing with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(20);
  }
}

/** True when `a` comes strictly before `b` in reader order. */
export function before(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId < b.transactionId || (a.transactionId === b.transactionId && a.globalPosition < b.globalPosition);
}

/**
 * Reads `category` from `after` until at least `count` events are visible (readers may lag behind
 * commits on PostgreSQL while older transactions of other sessions are open), then returns them.
 */
export async function readAtLeast(store: EventStore, category: string, count: number, after: ReaderCursor = START_CURSOR): Promise<StoredEvent[]> {
  let events: StoredEvent[] = [];
  await eventually(`${count} events of ${category}`, async () => {
    events = (await readToHead(store, category, after)).events;
    return events.length >= count;
  });
  return events;
}
