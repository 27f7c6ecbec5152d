/**
 * Every event of some categories (or of `$all`) committed before the read first came back empty,
 * page by page: what a projection rebuild replays and what `protean-ts events read` prints. On
 * PostgreSQL a read can come back empty while such events exist, held back until the oldest
 * transaction open on the server ends (see ReaderCursor); these pages wait for them instead of
 * stopping short.
 */
import { getLogger } from '../logging/logger.js';
import type { EventStore } from '../ports/event-store.js';
import { START_CURSOR, type CategoryPage, type ReaderCursor } from '../ports/event-store-records.js';
import { ALL_STREAMS } from '../ports/stream-names.js';

/** Pauses between reads while events are held back: the first, doubling up to the longest. */
export const HELD_BACK_FIRST_PAUSE_MS = 50;
export const HELD_BACK_LONGEST_PAUSE_MS = 1_000;
/** After this long held back without progress (and again after each further stretch), a WARN says why. */
export const HELD_BACK_WARN_AFTER_MS = 60_000;

export interface CommittedPagesOptions {
  /** Events per store read. */
  pageSize: number;
  /** Stop after this many events; default every committed one. */
  limit?: number;
  /** Who reads, for the WARN while events are held back: "the rebuild of projection Balances". */
  reader: string;
  /** The logger of that WARN. */
  logger: string;
  /** Appended to that WARN: what the operator may do besides waiting. */
  hint?: string;
  /** Extra fields of that WARN. */
  fields?: Record<string, unknown>;
  /** Held back this long without progress (and each further stretch), the WARN; default HELD_BACK_WARN_AFTER_MS. */
  warnAfterMs?: number;
}

/**
 * Pages after START_CURSOR of `categories` (or `[ALL_STREAMS]`), each read once the previous one
 * was consumed, up to the last event committed when the first read came back empty.
 */
export async function* committedPages(store: EventStore, categories: readonly string[], options: CommittedPagesOptions): AsyncGenerator<CategoryPage> {
  const single = categories.length === 1 || categories[0] === ALL_STREAMS;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let cursor: ReaderCursor = START_CURSOR;
  let taken = 0;
  let end: ReaderCursor | undefined;
  const wait = new HeldBackWait(options);
  while (taken < limit) {
    const read = { after: cursor, limit: Math.min(options.pageSize, limit - taken) };
    const page = single ? await store.readCategory(categories[0]!, read) : await store.readCategories(categories, read);
    if (page.events.length > 0) {
      cursor = page.cursor;
      taken += page.events.length;
      wait.reset();
      yield page;
      continue;
    }
    // Fixed at the first empty read, or a steady flow of new events would keep the reader going:
    // events committed after it are the subscriptions' (or the next read's) to take.
    end ??= await store.committedEnd(categories);
    if (!isBefore(cursor, end)) return;
    await wait.pause(cursor, end);
  }
}

/** Waits without progress: growing pauses, a WARN each `warnAfterMs`. */
class HeldBackWait {
  private since: number | undefined;
  private warned = 0;
  private pauseMs = HELD_BACK_FIRST_PAUSE_MS;

  constructor(private readonly options: CommittedPagesOptions) {}

  reset(): void {
    this.since = undefined;
    this.warned = 0;
    this.pauseMs = HELD_BACK_FIRST_PAUSE_MS;
  }

  async pause(cursor: ReaderCursor, end: ReaderCursor): Promise<void> {
    this.since ??= Date.now();
    const waited = Date.now() - this.since;
    if (waited >= (this.warned + 1) * (this.options.warnAfterMs ?? HELD_BACK_WARN_AFTER_MS)) {
      this.warned += 1;
      const { reader, logger, hint, fields } = this.options;
      getLogger(logger).warn(
        `${reader} has waited ${Math.round(waited / 1000)} s for committed events that readers cannot take yet: a transaction opened before they committed is still open on the database server (on PostgreSQL, in any of its databases). It keeps waiting and goes on when that transaction ends; find it in pg_stat_activity (oldest xact_start)${hint ? `, ${hint}` : ''}`,
        { ...fields, waitedSeconds: Math.round(waited / 1000), cursor, committedEnd: end },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    this.pauseMs = Math.min(this.pauseMs * 2, HELD_BACK_LONGEST_PAUSE_MS);
  }
}

function isBefore(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId < b.transactionId || (a.transactionId === b.transactionId && a.globalPosition < b.globalPosition);
}
