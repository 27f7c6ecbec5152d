/**
 * How many events of a category follow a cursor, counted page by page up to a bound (a
 * subscription far behind is "at least N behind": counting millions would stall a status call).
 * On PostgreSQL a read stops before the events of transactions newer than the oldest one open on
 * the server (see ReaderCursor): such events are committed but not readable yet. The count then
 * says "at least", and the head is the last committed event, so a drain waits for them too.
 */
import type { EventStore, ReaderCursor } from '@protean-ts/core';

const PAGE = 1000;

export interface EventsBehind {
  count: number;
  /** `count` is a lower bound: it stopped at `max`, or later events are held back from reads. */
  capped: boolean;
  /** Committed events after the counted ones that no read returns yet (an open transaction elsewhere holds them back). */
  heldBack: boolean;
  /** The category's head, the last committed event's cursor, when not capped by `max`; else the last event counted. */
  last: ReaderCursor;
}

export async function eventsBehind(store: EventStore, category: string, after: ReaderCursor, max: number): Promise<EventsBehind> {
  let cursor = after;
  let count = 0;
  while (count < max) {
    const size = Math.min(PAGE, max - count);
    const page = await store.readCategory(category, { after: cursor, limit: size });
    count += page.events.length;
    cursor = page.cursor;
    if (page.events.length < size) {
      const end = await store.committedEnd([category]);
      const heldBack = !cursorAtOrAfter(cursor, end);
      return { count, capped: heldBack, heldBack, last: heldBack ? end : cursor };
    }
  }
  return { count, capped: true, heldBack: false, last: cursor };
}

/** Reader order: by transaction, then global position. */
export function cursorAtOrAfter(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId > b.transactionId || (a.transactionId === b.transactionId && a.globalPosition >= b.globalPosition);
}
