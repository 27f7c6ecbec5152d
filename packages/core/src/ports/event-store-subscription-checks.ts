/**
 * Argument checks of `EventStore.subscriptions`, run before any I/O: a caller's bug is an
 * `InvalidEventStoreRequestError` naming the method and argument, not an adapter's SQL error.
 */
import { InvalidEventStoreRequestError } from '../errors/invalid-event-store-request.error.js';
import type { ReaderCursor } from './event-store-records.js';
import { MAX_LEASE_MS, type EventStoreDeadLetter, type EventStoreSubscriptions } from './event-store-subscriptions.js';

/** Subscription and owner names are stored as text keys; 255 characters is plenty and bounded. */
const MAX_NAME_LENGTH = 255;
const MAX_DEAD_LETTER_PAGE = 10_000;

/** Checks reject (never throw synchronously), like the adapters' own failures. */
export function checkedSubscriptions(inner: EventStoreSubscriptions): EventStoreSubscriptions {
  return {
    async acquire(subscription, owner, leaseMs) {
      names('subscriptions.acquire', subscription, owner);
      integer('subscriptions.acquire', 'leaseMs', leaseMs, 1, MAX_LEASE_MS);
      return inner.acquire(subscription, owner, leaseMs);
    },
    async renew(subscription, owner, leaseMs) {
      names('subscriptions.renew', subscription, owner);
      integer('subscriptions.renew', 'leaseMs', leaseMs, 1, MAX_LEASE_MS);
      return inner.renew(subscription, owner, leaseMs);
    },
    async saveCursor(subscription, owner, cursor) {
      names('subscriptions.saveCursor', subscription, owner);
      checkCursor('subscriptions.saveCursor', cursor);
      return inner.saveCursor(subscription, owner, cursor);
    },
    async release(subscription, owner) {
      names('subscriptions.release', subscription, owner);
      return inner.release(subscription, owner);
    },
    async addDeadLetter(letter: Omit<EventStoreDeadLetter, 'deadLetteredAt'>) {
      const method = 'subscriptions.addDeadLetter';
      name(method, 'subscription', letter?.subscription);
      integer(method, 'globalPosition', letter.globalPosition, 1, Number.MAX_SAFE_INTEGER);
      integer(method, 'position', letter.position, 0, Number.MAX_SAFE_INTEGER);
      for (const key of ['streamName', 'messageId', 'type', 'error'] as const) {
        if (typeof letter[key] !== 'string') fail(method, key, `must be a string, got ${typeof letter[key]}`);
      }
      return inner.addDeadLetter(letter);
    },
    async deadLetters(subscription, limit) {
      name('subscriptions.deadLetters', 'subscription', subscription);
      integer('subscriptions.deadLetters', 'limit', limit, 1, MAX_DEAD_LETTER_PAGE);
      return inner.deadLetters(subscription, limit);
    },
    async removeDeadLetters(subscription, globalPositions) {
      name('subscriptions.removeDeadLetters', 'subscription', subscription);
      if (!Array.isArray(globalPositions)) fail('subscriptions.removeDeadLetters', 'globalPositions', 'must be an array of global positions');
      for (const position of globalPositions) integer('subscriptions.removeDeadLetters', 'globalPositions[]', position, 1, Number.MAX_SAFE_INTEGER);
      if (globalPositions.length === 0) return 0;
      return inner.removeDeadLetters(subscription, globalPositions);
    },
    states: () => inner.states(),
  };
}

function names(method: string, subscription: unknown, owner: unknown): void {
  name(method, 'subscription', subscription);
  name(method, 'owner', owner);
}

function name(method: string, argument: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NAME_LENGTH) {
    fail(
      method,
      argument,
      `must be a non-empty string of at most ${MAX_NAME_LENGTH} characters, got ${typeof value === 'string' ? `${value.length} characters` : typeof value}`,
    );
  }
}

function integer(method: string, argument: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(method, argument, `must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
}

function checkCursor(method: string, cursor: ReaderCursor | undefined): void {
  if (typeof cursor !== 'object' || cursor === null) fail(method, 'cursor', 'must be a ReaderCursor { transactionId, globalPosition }');
  integer(method, 'cursor.transactionId', cursor.transactionId, 0, Number.MAX_SAFE_INTEGER);
  integer(method, 'cursor.globalPosition', cursor.globalPosition, 0, Number.MAX_SAFE_INTEGER);
}

function fail(method: string, argument: string, problem: string): never {
  throw new InvalidEventStoreRequestError(method, argument, problem);
}
