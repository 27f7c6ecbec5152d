/**
 * The rules of `EventStore.subscriptions` every adapter must keep: one lease holder at a time
 * (also when many ask at once), leases that expire and can be released, a cursor that only the
 * holder moves and only forward, and dead letters kept by global position. Part of the event
 * store conformance suite.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidEventStoreRequestError, type EventStore, START_CURSOR } from '@protean-ts/core';
import { sleep } from './event-store-conformance-fixtures.js';

const LEASE_MS = 60_000;

export function describeSubscriptionStore(context: () => { store: EventStore }): void {
  describe('subscription leases, cursors and dead letters', () => {
    const name = () => `conformance-${randomUUID()}`;

    it('gives a new subscription its lease and the start cursor; another owner waits, the holder renews', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      expect(await subscriptions.acquire(sub, 'worker-a', LEASE_MS)).toEqual(START_CURSOR);
      expect(await subscriptions.acquire(sub, 'worker-b', LEASE_MS)).toBeNull();
      expect(await subscriptions.renew(sub, 'worker-a', LEASE_MS)).toBe(true);
      expect(await subscriptions.renew(sub, 'worker-b', LEASE_MS)).toBe(false);
      expect(await subscriptions.acquire(sub, 'worker-a', LEASE_MS)).toEqual(START_CURSOR);
    });

    it('lets only the holder move the cursor, and only forward', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      await subscriptions.acquire(sub, 'worker-a', LEASE_MS);
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 7, globalPosition: 40 })).toBe(true);
      // An older cursor saved late (an earlier flush finishing after a later one) changes nothing.
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 7, globalPosition: 12 })).toBe(true);
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 3, globalPosition: 90 })).toBe(true);
      expect(await subscriptions.saveCursor(sub, 'worker-b', { transactionId: 99, globalPosition: 99 })).toBe(false);
      expect(await subscriptions.acquire(sub, 'worker-a', LEASE_MS)).toEqual({ transactionId: 7, globalPosition: 40 });
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 8, globalPosition: 41 })).toBe(true);
      expect(await subscriptions.acquire(sub, 'worker-a', LEASE_MS)).toEqual({ transactionId: 8, globalPosition: 41 });
    });

    it('hands a released lease over at once, with the cursor its holder saved', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      await subscriptions.acquire(sub, 'worker-a', LEASE_MS);
      await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 5, globalPosition: 5 });
      await subscriptions.release(sub, 'worker-b'); // not b's: nothing happens
      expect(await subscriptions.acquire(sub, 'worker-b', LEASE_MS)).toBeNull();
      await subscriptions.release(sub, 'worker-a');
      expect(await subscriptions.acquire(sub, 'worker-b', LEASE_MS)).toEqual({ transactionId: 5, globalPosition: 5 });
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 6, globalPosition: 6 })).toBe(false);
    });

    it('lets another owner take an expired lease; the old holder then neither renews nor saves', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      await subscriptions.acquire(sub, 'worker-a', 50);
      await sleep(150);
      expect(await subscriptions.acquire(sub, 'worker-b', LEASE_MS)).toEqual(START_CURSOR);
      expect(await subscriptions.renew(sub, 'worker-a', LEASE_MS)).toBe(false);
      expect(await subscriptions.saveCursor(sub, 'worker-a', { transactionId: 1, globalPosition: 1 })).toBe(false);
      const [state] = (await subscriptions.states()).filter((s) => s.subscription === sub);
      expect(state).toMatchObject({ owner: 'worker-b', cursor: START_CURSOR, deadLetters: 0 });
      expect(state!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + LEASE_MS / 2);
    });

    it('gives the lease to exactly one of many owners asking at once', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      const owners = Array.from({ length: 12 }, (_, i) => `worker-${i}`);
      const results = await Promise.all(owners.map((owner) => subscriptions.acquire(sub, owner, LEASE_MS)));
      expect(results.filter((cursor) => cursor !== null)).toHaveLength(1);
    });

    it('keeps dead letters by global position: listed oldest first, a second one of an event replaces the first, removed by position', async () => {
      const { subscriptions } = context().store;
      const sub = name();
      const letter = (globalPosition: number, error: string) => ({
        subscription: sub,
        globalPosition,
        streamName: `conformance::c-${globalPosition}`,
        position: 0,
        messageId: `m-${globalPosition}`,
        type: 'Conformance.Happened.v1',
        error,
      });
      await subscriptions.addDeadLetter(letter(30, 'first failure'));
      await sleep(5);
      await subscriptions.addDeadLetter(letter(10, 'boom'));
      await sleep(5);
      await subscriptions.addDeadLetter(letter(30, 'failed again after a replay'));
      const letters = await subscriptions.deadLetters(sub, 10);
      expect(letters.map((l) => [l.globalPosition, l.error])).toEqual([
        [10, 'boom'],
        [30, 'failed again after a replay'],
      ]);
      expect(letters[0]).toMatchObject({ subscription: sub, streamName: 'conformance::c-10', position: 0, messageId: 'm-10', type: 'Conformance.Happened.v1' });
      expect(letters[0]!.deadLetteredAt).toBeInstanceOf(Date);
      expect(await subscriptions.deadLetters(sub, 1)).toHaveLength(1);
      expect((await subscriptions.states()).find((s) => s.subscription === sub)).toMatchObject({ owner: null, deadLetters: 2 });
      expect(await subscriptions.removeDeadLetters(sub, [10, 11])).toBe(1);
      expect((await subscriptions.deadLetters(sub, 10)).map((l) => l.globalPosition)).toEqual([30]);
      expect(await subscriptions.removeDeadLetters(sub, [])).toBe(0);
    });

    it('refuses bad arguments by method and name before any I/O', async () => {
      const { subscriptions } = context().store;
      await expect(subscriptions.acquire('', 'worker-a', LEASE_MS)).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(subscriptions.acquire('s', 'worker-a', 0)).rejects.toThrow(/subscriptions\.acquire\(\): leaseMs must be an integer from 1/);
      await expect(subscriptions.renew('s', 'x'.repeat(256), LEASE_MS)).rejects.toThrow(/owner must be a non-empty string of at most 255/);
      await expect(subscriptions.saveCursor('s', 'w', { transactionId: -1, globalPosition: 0 })).rejects.toThrow(/cursor\.transactionId/);
      await expect(subscriptions.deadLetters('s', 0)).rejects.toThrow(/limit/);
      await expect(subscriptions.removeDeadLetters('s', [1.5])).rejects.toThrow(/globalPositions/);
    });
  });
}
