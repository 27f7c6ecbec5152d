/**
 * One in-process stream: an append-only list of serialised envelopes trimmed to `maxlen`,
 * its consumer groups, and the readers blocked until something is appended.
 */
import { InlineGroup } from './inline-group.js';
import { StreamIdClock } from './stream-id-clock.js';

export interface StoredEntry {
  id: string;
  /** The envelope as JSON: what a networked broker would carry, and a copy no caller can mutate. */
  body: string;
}

export class InlineStream {
  readonly groups = new Map<string, InlineGroup>();
  private readonly entries: StoredEntry[] = [];
  /** Absolute position of `entries[0]`; grows as trimming drops the oldest entries. */
  private firstPosition = 0;
  private readonly clock = new StreamIdClock();
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly name: string,
    /** 0 keeps everything. */
    private readonly maxlen: number,
  ) {}

  get length(): number {
    return this.entries.length;
  }

  /** Absolute position one past the newest entry. */
  get endPosition(): number {
    return this.firstPosition + this.entries.length;
  }

  append(body: string): string {
    const id = this.clock.next();
    this.entries.push({ id, body });
    if (this.maxlen > 0 && this.entries.length > this.maxlen) {
      const excess = this.entries.length - this.maxlen;
      this.entries.splice(0, excess);
      this.firstPosition += excess;
    }
    this.wake();
    return id;
  }

  /** The entry at an absolute position, or undefined once trimmed. */
  at(position: number): StoredEntry | undefined {
    return position < this.firstPosition ? undefined : this.entries[position - this.firstPosition];
  }

  /** Starts at the oldest retained entry, like `XGROUP CREATE … 0`. */
  group(name: string): InlineGroup {
    let group = this.groups.get(name);
    if (!group) {
      group = new InlineGroup(name, this.firstPosition);
      this.groups.set(name, group);
    }
    return group;
  }

  /** Moves a group's cursor past entries trimmed away before it reached them. */
  clampCursor(group: InlineGroup): void {
    if (group.cursor < this.firstPosition) group.cursor = this.firstPosition;
  }

  /** Resolves on the next append, after `ms`, or when `wake()` is called (close). */
  waitForAppend(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
