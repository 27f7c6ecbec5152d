/**
 * How many events of a category follow a cursor, counted page by page up to a bound (a
 * subscription far behind is "at least N behind": counting millions would stall a status call).
 */
import type { EventStore, ReaderCursor } from '@protean-ts/core';

const PAGE = 1000;

export interface EventsBehind {
  count: number;
  capped: boolean;
  /** The cursor of the last event counted (the category's head when not capped). */
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
    if (page.events.length < size) return { count, capped: false, last: cursor };
  }
  return { count, capped: true, last: cursor };
}

/** Reader order: by transaction, then global position. */
export function cursorAtOrAfter(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId > b.transactionId || (a.transactionId === b.transactionId && a.globalPosition >= b.globalPosition);
}
