/**
 * The outbox rows that were open (pending, processing or failed) at one moment, noted by id, and
 * which of them still are. Rows are listed oldest id first, so a full page whose last id is below
 * the newest noted id may hide noted rows further on: then the answer is "at least".
 */
import type { OutboxStatus, OutboxStore } from '@protean-ts/core';

const OPEN: readonly OutboxStatus[] = ['pending', 'processing', 'failed'];

/** Open rows noted per status by default; beyond it the oldest are tracked (`truncated`). */
export const DEFAULT_TRACK_LIMIT = 10_000;

export class OpenOutboxRows {
  private constructor(
    private readonly outbox: OutboxStore,
    private readonly ids: ReadonlySet<string>,
    private readonly newest: bigint,
    readonly truncated: boolean,
    private readonly limit: number,
  ) {}

  static async note(outbox: OutboxStore, limit = DEFAULT_TRACK_LIMIT): Promise<OpenOutboxRows> {
    const pages = await Promise.all(OPEN.map((status) => outbox.list({ status, limit })));
    const ids = new Set(pages.flat().map((row) => row.id));
    const newest = [...ids].reduce((max, id) => (idOf(id) > max ? idOf(id) : max), -1n);
    return new OpenOutboxRows(
      outbox,
      ids,
      newest,
      pages.some((page) => page.length === limit),
      limit,
    );
  }

  get size(): number {
    return this.ids.size;
  }

  async stillOpen(): Promise<{ left: number; atLeast: boolean }> {
    if (this.ids.size === 0) return { left: 0, atLeast: false };
    const pages = await Promise.all(OPEN.map((status) => this.outbox.list({ status, limit: this.limit })));
    let left = 0;
    let atLeast = false;
    for (const page of pages) {
      left += page.filter((row) => this.ids.has(row.id)).length;
      const last = page.at(-1);
      if (page.length === this.limit && last !== undefined && idOf(last.id) < this.newest) atLeast = true;
    }
    return { left, atLeast };
  }
}

/** Store ids are integers as strings (bigint on SQL stores). */
function idOf(id: string): bigint {
  return /^\d+$/.test(id) ? BigInt(id) : -1n;
}
