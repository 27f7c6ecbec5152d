/**
 * The pages a projection rebuild replays: every event of its categories committed before its reads
 * first came back empty. On PostgreSQL a read can come back empty while such events exist, held
 * back until the oldest transaction open on the server ends (see ReaderCursor); the rebuild waits.
 */
import { getLogger } from '../logging/logger.js';
import type { EventStore } from '../ports/event-store.js';
import { START_CURSOR, type CategoryPage, type ReaderCursor } from '../ports/event-store-records.js';

/** Pauses between reads while events are held back: the first, doubling up to the longest. */
export const HELD_BACK_FIRST_PAUSE_MS = 50;
export const HELD_BACK_LONGEST_PAUSE_MS = 1_000;
/** After this long held back without progress (and again after each further stretch), a WARN says why. */
export const HELD_BACK_WARN_AFTER_MS = 60_000;

const log = getLogger('projection.rebuild');

/** Pages after START_CURSOR, each read once the previous one was consumed. */
export async function* rebuildPages(store: EventStore, categories: readonly string[], batchSize: number, projection: string): AsyncGenerator<CategoryPage> {
  let cursor: ReaderCursor = START_CURSOR;
  let end: ReaderCursor | undefined;
  const wait = new HeldBackWait(projection);
  for (;;) {
    const page = await store.readCategories(categories, { after: cursor, limit: batchSize });
    if (page.events.length > 0) {
      cursor = page.cursor;
      wait.reset();
      yield page;
      continue;
    }
    // Fixed at the first empty read, or a steady flow of new events would keep the rebuild going:
    // events committed after it are the projector subscriptions' to apply when they resume.
    end ??= await store.committedEnd(categories);
    if (!isBefore(cursor, end)) return;
    await wait.pause(cursor, end);
  }
}

/** Waits without progress: growing pauses, a WARN each HELD_BACK_WARN_AFTER_MS. */
class HeldBackWait {
  private since: number | undefined;
  private warned = 0;
  private pauseMs = HELD_BACK_FIRST_PAUSE_MS;

  constructor(private readonly projection: string) {}

  reset(): void {
    this.since = undefined;
    this.warned = 0;
    this.pauseMs = HELD_BACK_FIRST_PAUSE_MS;
  }

  async pause(cursor: ReaderCursor, end: ReaderCursor): Promise<void> {
    this.since ??= Date.now();
    const waited = Date.now() - this.since;
    if (waited >= (this.warned + 1) * HELD_BACK_WARN_AFTER_MS) {
      this.warned += 1;
      log.warn(
        `the rebuild of projection ${this.projection} has waited ${Math.round(waited / 1000)} s for committed events that readers cannot take yet: a transaction opened before they committed is still open on the database server (on PostgreSQL, in any of its databases). It keeps waiting and goes on when that transaction ends; find it in pg_stat_activity (oldest xact_start), or stop the rebuild and run it again later (the projection stays marked as being rebuilt)`,
        { projection: this.projection, waitedSeconds: Math.round(waited / 1000), cursor, committedEnd: end },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    this.pauseMs = Math.min(this.pauseMs * 2, HELD_BACK_LONGEST_PAUSE_MS);
  }
}

function isBefore(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId < b.transactionId || (a.transactionId === b.transactionId && a.globalPosition < b.globalPosition);
}
