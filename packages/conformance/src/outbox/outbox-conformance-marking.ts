/**
 * Settling claimed outbox rows: `markPublishedAndClaim`, `markPublished`, `markFailed` (attempts,
 * retry times, abandon, lost locks), `release` and `extendLocks`. Part of
 * `describeOutboxStoreConformance`; imports vitest.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OutboxRow, OutboxStore } from '@protean-ts/core';
import type { OutboxSuiteContext } from './outbox-conformance-context.js';
import { sleep, type RowFactory } from './outbox-conformance-fixtures.js';

export function describeOutboxMarking(context: OutboxSuiteContext): void {
  let store: OutboxStore;
  let rows: RowFactory;
  beforeEach(() => {
    ({ store, rows } = context);
  });
  const { append, mine, claim, labels, keysOf, byLabels } = context;

  describe('markPublishedAndClaim', () => {
    const markAndClaim = (workerId: string, published: readonly OutboxRow[], limit = 10) =>
      store.markPublishedAndClaim(
        published.map((r) => r.id),
        { workerId, targetBroker: rows.broker, limit, lockMs: 30000 },
      );

    it('marks the published rows and claims the next heads of their keys in the same step', async () => {
      await append(rows.row('a', 1), rows.row('a', 2), rows.row('b', 1), rows.row('b', 2));
      const first = await claim('w1');
      expect(keysOf(first)).toEqual(['a1', 'b1']);
      const { marked, rows: next } = await markAndClaim('w1', first);
      expect(marked).toBe(2);
      // The keys just published hand over to their second rows at once.
      expect(keysOf(next)).toEqual(['a2', 'b2']);
      for (const row of next) expect(row).toMatchObject({ status: 'processing', lockedBy: 'w1' });
      expect((await mine('published')).map((r) => r.id).sort()).toEqual(first.map((r) => r.id).sort());
    });

    it('with nothing to mark it claims like claimBatch; with nothing to claim it still marks', async () => {
      await append(rows.row('a', 1), rows.row('b', 1));
      const { marked, rows: claimed } = await markAndClaim('w1', []);
      expect(marked).toBe(0);
      expect(keysOf(claimed)).toEqual(['a1', 'b1']);
      expect(await markAndClaim('w1', claimed)).toEqual({ marked: 2, rows: [] });
      expect((await mine('published')).length).toBe(2);
    });

    it('regression (lost lock): a row taken over by another worker is not marked and still holds back its key', async () => {
      await append(rows.row('a', 1), rows.row('a', 2));
      const [held] = await claim('w1', 10, 50);
      await sleep(150);
      const [taken] = await claim('w2', 10, 30000);
      expect(taken!.id).toBe(held!.id);
      expect(await markAndClaim('w1', [held!])).toEqual({ marked: 0, rows: [] });
      expect((await mine('processing'))[0]).toMatchObject({ id: held!.id, lockedBy: 'w2', retryCount: 0 });
      expect(await mine('pending')).toHaveLength(1);
    });
  });

  describe('marking', () => {
    it("lists one correlation id's rows, in append order", async () => {
      const correlationId = `corr-${randomUUID()}`;
      await append(rows.row('a', 1, { correlationId }), rows.row('b', 1), rows.row('c', 1, { correlationId }));
      const found = await store.list({ correlationId, limit: 100 });
      expect(labels(found)).toEqual(['a1', 'c1']);
      expect(found.every((row) => row.correlationId === correlationId)).toBe(true);
      expect(await store.list({ correlationId, status: 'published', limit: 100 })).toEqual([]);
      expect(await store.list({ correlationId, limit: 1 })).toHaveLength(1);
    });

    it('counts the rows published since a moment per stream, in stream-name order', async () => {
      const stream = `conformance::rate-${randomUUID().slice(0, 8)}`;
      const before = new Date(Date.now() - 1000);
      await append(
        rows.row('a', 1, { streamName: `${stream}-b` }),
        rows.row('b', 1, { streamName: `${stream}-a` }),
        rows.row('c', 1, { streamName: `${stream}-a` }),
      );
      await append(rows.row('d', 1, { streamName: `${stream}-a` }));
      const claimed = await claim('w1', 3);
      expect(claimed).toHaveLength(3);
      await store.markPublished(
        'w1',
        claimed.map((r) => r.id),
      );
      const mineOnly = (await store.publishedByStream(before)).filter((r) => r.streamName.startsWith(stream));
      const publishedA = claimed.filter((r) => r.streamName === `${stream}-a`).length;
      expect(mineOnly).toEqual([
        ...(publishedA > 0 ? [{ streamName: `${stream}-a`, published: publishedA }] : []),
        ...(publishedA < 3 ? [{ streamName: `${stream}-b`, published: 3 - publishedA }] : []),
      ]);
      const later = (await store.publishedByStream(new Date(Date.now() + 60_000))).filter((r) => r.streamName.startsWith(stream));
      expect(later).toEqual([]);
    });

    it('markPublished sets published and publishedAt and clears the lock', async () => {
      await append(rows.row('a', 1), rows.row('b', 1));
      const claimed = await claim('w1');
      expect(
        await store.markPublished(
          'w1',
          claimed.map((r) => r.id),
        ),
      ).toBe(2);
      for (const row of await mine()) {
        expect(row).toMatchObject({ status: 'published', lockedBy: null, lockedUntil: null });
        expect(row.publishedAt).toBeInstanceOf(Date);
      }
      expect(
        await store.markPublished(
          'w1',
          claimed.map((r) => r.id),
        ),
      ).toBe(0);
    });

    it('markPublished ignores rows the worker never claimed', async () => {
      await append(rows.row('a', 1));
      const [row] = await mine();
      expect(await store.markPublished('w1', [row!.id])).toBe(0);
      expect((await mine())[0]!.status).toBe('pending');
    });

    it('markFailed counts an attempt, records the error and the retry time', async () => {
      await append(rows.row('a', 1));
      const [row] = await claim('w1');
      const retryAt = new Date(Date.now() + 60000);
      expect(await store.markFailed('w1', [{ id: row!.id, error: 'broker said no', nextRetryAt: retryAt, abandon: false }])).toEqual([row!.id]);
      const [failed] = await mine();
      expect(failed).toMatchObject({ status: 'failed', retryCount: 1, lastError: 'broker said no', lockedBy: null, lockedUntil: null });
      expect(Math.abs(failed!.nextRetryAt!.getTime() - retryAt.getTime())).toBeLessThan(5);
      expect(await claim('w1')).toEqual([]);
    });

    it('a failed row is claimed again once its retry time has passed', async () => {
      await append(rows.row('a', 1));
      const [row] = await claim('w1');
      await store.markFailed('w1', [{ id: row!.id, error: 'x', nextRetryAt: new Date(Date.now() + 100), abandon: false }]);
      expect(await claim('w1')).toEqual([]);
      await sleep(200);
      const [again] = await claim('w2');
      expect(again).toMatchObject({ id: row!.id, retryCount: 1, lockedBy: 'w2' });
    });

    it('markFailed with abandon makes the row abandoned and unclaimable', async () => {
      await append(rows.row('a', 1));
      const [row] = await claim('w1');
      await store.markFailed('w1', [{ id: row!.id, error: 'poison', nextRetryAt: new Date(), abandon: true }]);
      expect((await mine())[0]).toMatchObject({ status: 'abandoned', retryCount: 1, lastError: 'poison' });
      expect(await claim('w1')).toEqual([]);
    });

    it('release gives rows back without counting an attempt', async () => {
      await append(rows.row('a', 1), rows.row('b', 1));
      const claimed = await claim('w1');
      expect(
        await store.release(
          'w2',
          claimed.map((r) => r.id),
        ),
      ).toBe(0);
      expect(
        await store.release(
          'w1',
          claimed.map((r) => r.id),
        ),
      ).toBe(2);
      for (const row of await mine()) expect(row).toMatchObject({ status: 'pending', retryCount: 0, lockedBy: null, lockedUntil: null });
      expect(keysOf(await claim('w2'))).toEqual(['a1', 'b1']);
    });
  });

  describe('markFailed results', () => {
    it('returns the ids it changed: rows another worker took over are left out and untouched', async () => {
      await append(rows.row('a', 1), rows.row('b', 1));
      const [a, b] = byLabels(await claim('w1', 10, 50), 'a1', 'b1');
      await sleep(150);
      // w2 takes the expired row a1 over; b1 stays with w1 only because nobody claimed it.
      const taken = await store.claimBatch({ workerId: 'w2', targetBroker: rows.broker, limit: 1, lockMs: 30000 });
      expect(taken).toHaveLength(1);
      const [lost, kept] = taken[0]!.id === a!.id ? [a!, b!] : [b!, a!];
      const changed = await store.markFailed('w1', [
        { id: lost.id, error: 'late', nextRetryAt: new Date(), abandon: true },
        { id: kept.id, error: 'gave up', nextRetryAt: new Date(), abandon: true },
      ]);
      expect(changed).toEqual([kept.id]);
      const byId = new Map((await mine()).map((r) => [r.id, r]));
      expect(byId.get(lost.id)).toMatchObject({ status: 'processing', lockedBy: 'w2', retryCount: 0, lastError: null });
      expect(byId.get(kept.id)).toMatchObject({ status: 'abandoned', retryCount: 1, lastError: 'gave up' });
    });

    it('keeps createdAt as written through claims, failures and releases (max_total_seconds counts from it)', async () => {
      await append(rows.row('a', 1));
      const [written] = await mine();
      await sleep(20);
      const [claimed] = await claim('w1');
      expect(claimed!.createdAt.getTime()).toBe(written!.createdAt.getTime());
      await store.markFailed('w1', [{ id: claimed!.id, error: 'e', nextRetryAt: new Date(Date.now() - 1), abandon: false }]);
      const [again] = await claim('w2');
      expect(again!.createdAt.getTime()).toBe(written!.createdAt.getTime());
      await store.release('w2', [again!.id]);
      expect((await mine())[0]!.createdAt.getTime()).toBe(written!.createdAt.getTime());
    });
  });

  describe('extendLocks', () => {
    it("regression (lock never renewed): a renewed lock outlives the claim's own, so no other worker can take the row", async () => {
      await append(rows.row('a', 1), rows.row('b', 1));
      const held = await claim('w1', 10, 300);
      const ids = held.map((r) => r.id);
      await sleep(150);
      expect((await store.extendLocks('w1', ids, 1000)).sort()).toEqual([...ids].sort());
      await sleep(300);
      // Past the claim's 300 ms: without the renewal both rows would be claimable now.
      expect(await claim('w2', 10, 30000)).toEqual([]);
      for (const row of await mine()) {
        expect(row).toMatchObject({ status: 'processing', lockedBy: 'w1' });
        expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
      }
      expect(await store.markPublished('w1', ids)).toBe(2);
    });

    it("extends only rows still processing under the caller: not another worker's, not settled ones, not unclaimed ones", async () => {
      await append(rows.row('a', 1), rows.row('b', 1), rows.row('c', 1), rows.row('d', 1));
      const [a, b, c] = byLabels(await claim('w1', 3), 'a1', 'b1', 'c1');
      const [d] = await claim('w2');
      await store.markPublished('w1', [b!.id]);
      await store.release('w1', [c!.id]);
      const pending = (await mine('pending'))[0]!;
      const before = new Map((await mine()).map((r) => [r.id, r.lockedUntil?.getTime() ?? null]));
      expect(await store.extendLocks('w1', [a!.id, b!.id, c!.id, d!.id, pending.id], 60000)).toEqual([a!.id]);
      const after = new Map((await mine()).map((r) => [r.id, r]));
      expect(after.get(a!.id)!.lockedUntil!.getTime()).toBeGreaterThan(before.get(a!.id)! + 20000);
      expect(after.get(d!.id)!.lockedUntil!.getTime()).toBe(before.get(d!.id));
      expect(after.get(d!.id)!.lockedBy).toBe('w2');
      expect(after.get(b!.id)).toMatchObject({ status: 'published', lockedUntil: null });
      expect(after.get(c!.id)).toMatchObject({ status: 'pending', lockedUntil: null });
      expect(await store.extendLocks('w1', [], 1000)).toEqual([]);
    });

    it("never shortens a lock, and leaves the row's status and attempts alone", async () => {
      await append(rows.row('a', 1));
      const [row] = await claim('w1', 10, 60000);
      expect(await store.extendLocks('w1', [row!.id], 1000)).toEqual([row!.id]);
      const [after] = await mine();
      expect(after!.lockedUntil!.getTime()).toBe(row!.lockedUntil!.getTime());
      expect(after).toMatchObject({ status: 'processing', lockedBy: 'w1', retryCount: 0 });
    });

    it('a row whose lock expired and was taken over is not renewed by its old holder', async () => {
      await append(rows.row('a', 1));
      const [held] = await claim('w1', 10, 50);
      await sleep(150);
      const [taken] = await claim('w2', 10, 30000);
      expect(taken!.id).toBe(held!.id);
      expect(await store.extendLocks('w1', [held!.id], 60000)).toEqual([]);
      expect((await mine())[0]!.lockedUntil!.getTime()).toBe(taken!.lockedUntil!.getTime());
    });
  });
}
