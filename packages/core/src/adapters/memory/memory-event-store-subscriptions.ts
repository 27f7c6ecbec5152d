/**
 * Leases, cursors and dead letters of event-store subscriptions for the memory event store: one
 * process holds the store, so a lease here only orders the subscriptions of that process (and
 * of tests); the rules are the PostgreSQL store's, checked by the same conformance suite.
 */
import { START_CURSOR, type ReaderCursor } from '../../ports/event-store-records.js';
import type { EventStoreDeadLetter, EventStoreSubscriptions, EventStoreSubscriptionState } from '../../ports/event-store-subscriptions.js';

interface Entry {
  owner: string | null;
  leaseExpiresAt: number | null;
  cursor: ReaderCursor;
}

export class MemoryEventStoreSubscriptions implements EventStoreSubscriptions {
  private readonly entries = new Map<string, Entry>();
  /** Per subscription, by global position. */
  private readonly letters = new Map<string, Map<number, EventStoreDeadLetter>>();

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(subscription: string, owner: string, leaseMs: number): Promise<ReaderCursor | null> {
    const entry = this.entries.get(subscription) ?? { owner: null, leaseExpiresAt: null, cursor: START_CURSOR };
    if (entry.owner !== null && entry.owner !== owner && (entry.leaseExpiresAt ?? 0) > this.now()) return null;
    entry.owner = owner;
    entry.leaseExpiresAt = this.now() + leaseMs;
    this.entries.set(subscription, entry);
    return { ...entry.cursor };
  }

  async renew(subscription: string, owner: string, leaseMs: number): Promise<boolean> {
    const entry = this.entries.get(subscription);
    if (entry?.owner !== owner) return false;
    entry.leaseExpiresAt = this.now() + leaseMs;
    return true;
  }

  async saveCursor(subscription: string, owner: string, cursor: ReaderCursor): Promise<boolean> {
    const entry = this.entries.get(subscription);
    if (entry?.owner !== owner) return false;
    if (isAfter(cursor, entry.cursor)) entry.cursor = { transactionId: cursor.transactionId, globalPosition: cursor.globalPosition };
    return true;
  }

  async release(subscription: string, owner: string): Promise<void> {
    const entry = this.entries.get(subscription);
    if (entry?.owner !== owner) return;
    entry.owner = null;
    entry.leaseExpiresAt = null;
  }

  async addDeadLetter(letter: Omit<EventStoreDeadLetter, 'deadLetteredAt'>): Promise<void> {
    const letters = this.letters.get(letter.subscription) ?? new Map<number, EventStoreDeadLetter>();
    // A second dead-lettering of the same event (after a replay) keeps the newest error.
    letters.set(letter.globalPosition, { ...letter, deadLetteredAt: new Date(this.now()) });
    this.letters.set(letter.subscription, letters);
  }

  async deadLetters(subscription: string, limit: number): Promise<EventStoreDeadLetter[]> {
    const letters = [...(this.letters.get(subscription)?.values() ?? [])];
    return letters
      .sort((a, b) => a.deadLetteredAt.getTime() - b.deadLetteredAt.getTime() || a.globalPosition - b.globalPosition)
      .slice(0, limit)
      .map((letter) => ({ ...letter, deadLetteredAt: new Date(letter.deadLetteredAt) }));
  }

  async removeDeadLetters(subscription: string, globalPositions: readonly number[]): Promise<number> {
    const letters = this.letters.get(subscription);
    if (!letters) return 0;
    let removed = 0;
    for (const position of new Set(globalPositions)) if (letters.delete(position)) removed += 1;
    return removed;
  }

  async states(): Promise<EventStoreSubscriptionState[]> {
    const names = new Set([...this.entries.keys(), ...this.letters.keys()]);
    return [...names].sort().map((subscription) => {
      const entry = this.entries.get(subscription);
      return {
        subscription,
        owner: entry?.owner ?? null,
        leaseExpiresAt: entry?.leaseExpiresAt ? new Date(entry.leaseExpiresAt) : null,
        cursor: { ...(entry?.cursor ?? START_CURSOR) },
        deadLetters: this.letters.get(subscription)?.size ?? 0,
      };
    });
  }

  /** Forgets everything (the provider's truncate). */
  clear(): void {
    this.entries.clear();
    this.letters.clear();
  }
}

function isAfter(a: ReaderCursor, b: ReaderCursor): boolean {
  return a.transactionId > b.transactionId || (a.transactionId === b.transactionId && a.globalPosition > b.globalPosition);
}
