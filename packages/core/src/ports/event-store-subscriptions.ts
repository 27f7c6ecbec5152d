/**
 * What event-store subscriptions keep in the event store's database: per subscription a lease
 * (which worker reads its category now) and a read cursor, and the events it dead-lettered.
 *
 * The lease only spares work: one worker reads a category for a subscription at a time, and the
 * others stand by until it stops renewing. Correctness does not rest on it: the inbox, written
 * in each handler's transaction, decides whether an event is its stream's next, a duplicate or
 * early, so even two workers that both believe they hold the lease handle each event once and in
 * stream order. The cursor is where a new lease holder starts reading; it only moves forward,
 * only for the lease holder, and only past events whose handling has committed.
 */
import type { ReaderCursor } from './event-store-records.js';

export interface EventStoreDeadLetter {
  subscription: string;
  /** The event's global position: with the subscription, the dead letter's identity. */
  globalPosition: number;
  streamName: string;
  /** Position in its stream. */
  position: number;
  messageId: string;
  type: string;
  /** Why it was given up: the error's name, message and the top of its stack. */
  error: string;
  deadLetteredAt: Date;
}

export interface EventStoreSubscriptionState {
  subscription: string;
  /** The worker holding the lease (`<host>:<pid>:<n>`); null once released. */
  owner: string | null;
  /** When the lease runs out unless renewed; null once released. */
  leaseExpiresAt: Date | null;
  cursor: ReaderCursor;
  deadLetters: number;
}

export interface EventStoreSubscriptions {
  /**
   * Takes the subscription's lease for `leaseMs` when it is free, expired or already `owner`'s,
   * and returns the cursor to read after; null while another owner holds it. Creates the
   * subscription at the start of the store on first use.
   */
  acquire(subscription: string, owner: string, leaseMs: number): Promise<ReaderCursor | null>;
  /** Extends `owner`'s lease; false when it is no longer `owner`'s (another worker took it over). */
  renew(subscription: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Moves the cursor forward (never back) while `owner` holds the lease; false when it does not. */
  saveCursor(subscription: string, owner: string, cursor: ReaderCursor): Promise<boolean>;
  /** Gives the lease up (a stopping worker), so a standby takes over at once. */
  release(subscription: string, owner: string): Promise<void>;
  /** Records an event the subscription gave up on (kept until removed; the event itself stays in its stream). */
  addDeadLetter(letter: Omit<EventStoreDeadLetter, 'deadLetteredAt'>): Promise<void>;
  /** The subscription's dead letters, oldest first. */
  deadLetters(subscription: string, limit: number): Promise<EventStoreDeadLetter[]>;
  /** Removes dead letters (after a replay, or a purge); returns how many went. */
  removeDeadLetters(subscription: string, globalPositions: readonly number[]): Promise<number>;
  /** Every subscription known to this store. */
  states(): Promise<EventStoreSubscriptionState[]>;
}

/** The longest lease a subscription may take: an hour (`lease_seconds` is bounded the same). */
export const MAX_LEASE_MS = 3_600_000;
