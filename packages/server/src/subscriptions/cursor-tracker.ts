/**
 * Where an event-store subscription may safely resume: the cursor of the last event such that it
 * and every event read before it are done with (handled, skipped, passed or dead-lettered).
 * Events finish out of read order (up to `concurrency` streams run at once), so the cursor is the
 * low-water mark of the events read, never simply the last one finished.
 */
import type { ReaderCursor } from '@protean-ts/core';

interface Tracked {
  cursor: ReaderCursor;
  done: boolean;
}

export class CursorTracker {
  /** Events read and not yet behind the cursor, in read order (from `first`). */
  private readonly tracked: Tracked[] = [];
  private first = 0;
  private readonly byId = new Map<string, Tracked>();
  private settledCursor: ReaderCursor;

  constructor(start: ReaderCursor) {
    this.settledCursor = start;
  }

  /** The resume point: everything up to it is done. */
  get settled(): ReaderCursor {
    return this.settledCursor;
  }

  /** Events read and not yet behind the settled cursor. */
  get outstanding(): number {
    return this.tracked.length - this.first;
  }

  /** Records an event as read, in read order. */
  read(id: string, cursor: ReaderCursor): void {
    const entry = { cursor, done: false };
    this.tracked.push(entry);
    this.byId.set(id, entry);
  }

  /** Marks an event done; true when the settled cursor moved. */
  done(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry || entry.done) return false;
    entry.done = true;
    this.byId.delete(id);
    let moved = false;
    while (this.first < this.tracked.length && this.tracked[this.first]!.done) {
      this.settledCursor = this.tracked[this.first]!.cursor;
      this.first += 1;
      moved = true;
    }
    // Compacts now and then rather than shifting on every event.
    if (this.first > 1024 && this.first * 2 > this.tracked.length) {
      this.tracked.splice(0, this.first);
      this.first = 0;
    }
    return moved;
  }
}
