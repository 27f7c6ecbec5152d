/**
 * The behaviour every `OutboxStore` must show, as a vitest suite adapters run against their own
 * store (memory here, PostgreSQL in @protean-ts/outbox): transactional append, claim order per
 * partition key, lock expiry, `lockedBy` guards, failure/abandon, release, retry, cleanup,
 * counts and the append signal. Imports vitest, so only test files may import this module.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseProvider, NewOutboxRow, OutboxRow, OutboxStore } from '@protean-ts/core';
import { RowFactory } from './outbox-conformance-fixtures.js';

export interface OutboxConformanceHarness {
  /** A connected provider whose outbox table exists. Called before each test. */
  open(): Promise<DatabaseProvider>;
  /** Called after each test with the provider `open` returned. */
  close?(provider: DatabaseProvider): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeOutboxStoreConformance(name: string, harness: OutboxConformanceHarness): void {
  describe(`OutboxStore conformance: ${name}`, () => {
    let provider: DatabaseProvider;
    let store: OutboxStore;
    let rows: RowFactory;

    beforeEach(async () => {
      provider = await harness.open();
      store = provider.outbox;
      rows = new RowFactory();
    });
    afterEach(async () => {
      await harness.close?.(provider);
    });

    async function append(...newRows: NewOutboxRow[]): Promise<void> {
      const tx = await provider.begin();
      try {
        await store.append(tx, newRows);
        await tx.commit();
      } catch (error) {
        // A failed append must not leave a pooled connection inside an open transaction.
        await tx.rollback();
        throw error;
      }
    }
    async function mine(status?: OutboxRow['status']): Promise<OutboxRow[]> {
      const all = await store.list({ limit: 100000, ...(status ? { status } : {}) });
      return all.filter((row) => row.targetBroker === rows.broker);
    }
    const claim = (workerId: string, limit = 10, lockMs = 30000) => store.claimBatch({ workerId, targetBroker: rows.broker, limit, lockMs });
    // Stores may visit partition keys in any order (PostgreSQL walks them round-robin), so
    // results spanning several keys are compared as sorted `<key><sequence>` labels.
    const labels = (found: OutboxRow[]) => found.map((row) => `${row.partitionKey.split('-').pop()}${row.sequence}`);
    const keysOf = (found: OutboxRow[]) => labels(found).sort();
    const byLabels = (found: OutboxRow[], ...wanted: string[]) => {
      const map = new Map(found.map((row) => [labels([row])[0]!, row]));
      expect([...map.keys()].sort()).toEqual([...wanted].sort());
      return wanted.map((label) => map.get(label)!);
    };

    describe('append', () => {
      it('rows appear only when the transaction commits, with every field kept', async () => {
        const row = rows.row('a', 1, { priority: 2, correlationId: 'corr-1', causationId: 'cause-1' });
        const tx = await provider.begin();
        await store.append(tx, [row]);
        expect(await mine()).toHaveLength(0);
        await tx.commit();
        const [stored, ...rest] = await mine();
        expect(rest).toHaveLength(0);
        expect(stored).toMatchObject({
          messageId: row.messageId,
          streamName: row.streamName,
          partitionKey: row.partitionKey,
          sequence: 1,
          messageType: row.messageType,
          targetBroker: rows.broker,
          maxRetries: 3,
          priority: 2,
          correlationId: 'corr-1',
          causationId: 'cause-1',
          status: 'pending',
          retryCount: 0,
          nextRetryAt: null,
          lastError: null,
          lockedBy: null,
          lockedUntil: null,
          publishedAt: null,
        });
        expect(stored!.envelope).toEqual({
          ...row.envelope,
          metadata: { ...row.envelope.metadata, envelope: { ...row.envelope.metadata.envelope, position: { key: row.partitionKey, sequence: 1 } } },
        });
        expect(typeof stored!.id).toBe('string');
        expect(stored!.createdAt).toBeInstanceOf(Date);
        expect(Math.abs(stored!.createdAt.getTime() - Date.now())).toBeLessThan(60000);
      });

      it('defaults priority to 0 and correlation/causation to null', async () => {
        await append(rows.row('a', 1));
        const [stored] = await mine();
        expect(stored).toMatchObject({ priority: 0, correlationId: null, causationId: null });
      });

      it('rows of a rolled-back transaction never appear', async () => {
        const tx = await provider.begin();
        await store.append(tx, [rows.row('a', 1), rows.row('b', 1)]);
        await tx.rollback();
        expect(await mine()).toHaveLength(0);
        expect((await store.counts(rows.broker)).pending).toBe(0);
      });

      it('refuses a second row with the same message id for the same broker', async () => {
        const row = rows.row('a', 1);
        await append(row);
        const tx = await provider.begin();
        let failed = false;
        try {
          await store.append(tx, [{ ...row }]);
          await tx.commit();
        } catch {
          failed = true;
          await tx.rollback();
        }
        expect(failed).toBe(true);
        await append({ ...row, targetBroker: `${rows.broker}-external` });
        expect(await mine()).toHaveLength(1);
      });

      it('assigns distinct ids that grow with append order', async () => {
        await append(rows.row('a', 1), rows.row('b', 1));
        await append(rows.row('c', 1));
        const ids = (await mine()).map((row) => BigInt(row.id));
        expect(new Set(ids).size).toBe(3);
        expect([...ids].sort((x, y) => (x < y ? -1 : 1))).toEqual(ids);
      });
    });

    describe('claimBatch', () => {
      it('claims due rows of its broker only, up to the limit, and locks them', async () => {
        await append(rows.row('a', 1), rows.row('b', 1), rows.row('c', 1), rows.row('d', 1, { targetBroker: `${rows.broker}-other` }));
        const before = Date.now();
        const claimed = await claim('w1', 2, 5000);
        expect(claimed).toHaveLength(2);
        for (const row of claimed) {
          expect(row).toMatchObject({ status: 'processing', lockedBy: 'w1' });
          expect(row.lockedUntil!.getTime()).toBeGreaterThanOrEqual(before + 5000 - 1000);
          expect(row.lockedUntil!.getTime()).toBeLessThanOrEqual(Date.now() + 5000 + 1000);
        }
        const rest = await claim('w2', 10);
        expect(keysOf([...claimed, ...rest])).toEqual(['a1', 'b1', 'c1']);
        expect(await claim('w3', 10)).toEqual([]);
      });

      it('never claims a row while an earlier row of its partition key is unfinished', async () => {
        await append(rows.row('a', 1), rows.row('a', 2), rows.row('b', 1));
        await append(rows.row('a', 3));
        const first = await claim('w1');
        expect(keysOf(first)).toEqual(['a1', 'b1']);
        expect(await claim('w2')).toEqual([]);
        await store.markPublished(
          'w1',
          first.map((r) => r.id),
        );
        const second = await claim('w1');
        expect(keysOf(second)).toEqual(['a2']);
        await store.markPublished(
          'w1',
          second.map((r) => r.id),
        );
        expect(keysOf(await claim('w1'))).toEqual(['a3']);
      });

      it('numbers the rows of each key 1, 2, 3… per broker in commit order, without gaps, and stamps the position into the envelope', async () => {
        await append(rows.row('a', 1), rows.row('b', 1), rows.row('a', 2));
        const rolledBack = await provider.begin();
        await store.append(rolledBack, [rows.row('a', 99)]);
        await rolledBack.rollback();
        await append(rows.row('a', 3), rows.row('a', 4, { targetBroker: `${rows.broker}-external` }));
        const all = await store.list({ limit: 100000 });
        const positions = (broker: string, key: string) =>
          all
            .filter((row) => row.targetBroker === broker && row.partitionKey === rows.key(key))
            .sort((x, y) => x.sequence - y.sequence)
            .map((row) => [row.sequence, row.envelope.metadata.envelope.position?.sequence, row.envelope.metadata.envelope.position?.key === row.partitionKey]);
        expect(positions(rows.broker, 'a')).toEqual([
          [1, 1, true],
          [2, 2, true],
          [3, 3, true],
        ]);
        expect(positions(rows.broker, 'b')).toEqual([[1, 1, true]]);
        expect(positions(`${rows.broker}-external`, 'a')).toEqual([[1, 1, true]]);
      });

      it('concurrent appends to one key get consecutive sequences in commit order', async () => {
        const txs = await Promise.all(Array.from({ length: 3 }, () => provider.begin()));
        const committed: number[] = [];
        await Promise.all(
          txs.map(async (tx, i) => {
            await store.append(tx, [rows.row('a', i + 1, { correlationId: `c${i}` })]);
            await tx.commit();
            committed.push(i);
          }),
        );
        const stored = (await mine()).sort((x, y) => x.sequence - y.sequence);
        expect(stored.map((row) => row.sequence)).toEqual([1, 2, 3]);
        expect(stored.map((row) => row.correlationId)).toEqual(committed.map((i) => `c${i}`));
      });

      it('a failed row waiting for its retry holds back the rest of its key; an abandoned one does not', async () => {
        await append(rows.row('a', 1), rows.row('a', 2), rows.row('b', 1));
        const [a1, b1] = byLabels(await claim('w1'), 'a1', 'b1');
        await store.markFailed('w1', [{ id: a1!.id, error: 'boom', nextRetryAt: new Date(Date.now() + 60000), abandon: false }]);
        await store.markPublished('w1', [b1!.id]);
        expect(await claim('w1')).toEqual([]);
        await store.retry({ ids: [a1!.id] });
        const again = await claim('w1');
        expect(keysOf(again)).toEqual(['a1']);
        await store.markFailed('w1', [{ id: again[0]!.id, error: 'gave up', nextRetryAt: new Date(), abandon: true }]);
        expect(keysOf(await claim('w1'))).toEqual(['a2']);
      });

      it('takes over rows whose lock expired; the old holder can no longer change them', async () => {
        await append(rows.row('a', 1));
        const [held] = await claim('w1', 10, 50);
        expect(await claim('w2', 10, 30000)).toEqual([]);
        await sleep(150);
        const [taken] = await claim('w2', 10, 30000);
        expect(taken).toMatchObject({ id: held!.id, lockedBy: 'w2', status: 'processing' });
        expect(await store.markPublished('w1', [held!.id])).toBe(0);
        expect(await store.release('w1', [held!.id])).toBe(0);
        expect(await store.markFailed('w1', [{ id: held!.id, error: 'late', nextRetryAt: new Date(), abandon: false }])).toEqual([]);
        expect((await mine())[0]).toMatchObject({ status: 'processing', lockedBy: 'w2', retryCount: 0 });
        expect(await store.markPublished('w2', [held!.id])).toBe(1);
      });

      it('concurrent claims never hand the same row to two workers', async () => {
        const batch = Array.from({ length: 40 }, (_, i) => rows.row(`k${i}`, 1));
        await append(...batch);
        const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => claim(w, 15)));
        const ids = results.flat().map((row) => row.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(40);
      });
    });

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

    describe('due times (deliverAt)', () => {
      const inAnHour = () => new Date(Date.now() + 3_600_000);

      it('a row due later is scheduled: never claimed, never holding anything back, not promoted before its time', async () => {
        const due = inAnHour();
        await append(rows.row('later', 1, { deliverAt: due }), rows.row('now', 1));
        const [later] = await mine('scheduled');
        expect(later).toMatchObject({ partitionKey: rows.key('later'), sequence: 1 });
        expect(later!.deliverAt?.getTime()).toBe(due.getTime());
        expect(keysOf(await claim('w1'))).toEqual(['now1']);
        const promotion = await store.promoteDue(rows.broker, 100);
        expect(promotion.promoted).toBe(0);
        expect(promotion.nextDueAt?.getTime()).toBe(due.getTime());
        expect(await claim('w1')).toEqual([]);
        expect((await store.counts(rows.broker)).scheduled).toBe(1);
      });

      it('a row whose due time has passed at the append is pending at once', async () => {
        await append(rows.row('past', 1, { deliverAt: new Date(Date.now() - 60_000) }));
        expect(keysOf(await claim('w1'))).toEqual(['past1']);
      });

      it('promoteDue makes a row pending once due (and only rows of its broker), then it is claimed like any row', async () => {
        const due = new Date(Date.now() + 300);
        await append(rows.row('soon', 1, { deliverAt: due }), rows.row('other', 1, { deliverAt: due, targetBroker: `${rows.broker}-other` }));
        let promoted = 0;
        for (let i = 0; i < 500 && promoted === 0; i++) {
          promoted = (await store.promoteDue(rows.broker, 100)).promoted;
          if (promoted === 0) await sleep(20);
        }
        expect(promoted).toBe(1);
        expect(Date.now()).toBeGreaterThanOrEqual(due.getTime());
        const [claimed] = await claim('w1');
        expect(claimed).toMatchObject({ partitionKey: rows.key('soon'), status: 'processing' });
        expect(
          await store.list({ status: 'scheduled', limit: 100 }).then((all) => all.filter((row) => row.targetBroker === `${rows.broker}-other`)),
        ).toHaveLength(1);
      });

      it('promoteDue with dueBy counts rows due by then as due (tests fire timeouts early); a dueBy in the past is now', async () => {
        const inTenMinutes = new Date(Date.now() + 10 * 60_000);
        await append(rows.row('in-ten', 1, { deliverAt: inTenMinutes }), rows.row('in-an-hour', 1, { deliverAt: inAnHour() }));
        expect((await store.promoteDue(rows.broker, 100, { dueBy: new Date(Date.now() - 60_000) })).promoted).toBe(0);
        const promotion = await store.promoteDue(rows.broker, 100, { dueBy: new Date(Date.now() + 15 * 60_000) });
        expect(promotion.promoted).toBe(1);
        // The next due time is the hour's row: the ten minutes' one is pending now.
        expect(promotion.nextDueAt!.getTime()).toBeGreaterThan(inTenMinutes.getTime());
        expect((await mine('pending')).map((row) => row.partitionKey)).toEqual([rows.key('in-ten')]);
        expect((await mine('scheduled')).map((row) => row.partitionKey)).toEqual([rows.key('in-an-hour')]);
      });

      it('cancelScheduled deletes the scheduled rows of a key prefix when its transaction commits, not on rollback', async () => {
        await append(
          rows.row('pm/timeout/1', 1, { deliverAt: inAnHour() }),
          rows.row('pm/timeout/2', 1, { deliverAt: inAnHour() }),
          rows.row('pmx/timeout/3', 1, { deliverAt: inAnHour() }),
          rows.row('pm/timeout/4', 1),
        );
        const prefix = `${rows.key('pm')}/timeout/`;
        const rolledBack = await provider.begin();
        await store.cancelScheduled(rolledBack, prefix);
        await rolledBack.rollback();
        expect(await mine('scheduled')).toHaveLength(3);
        const tx = await provider.begin();
        await store.cancelScheduled(tx, prefix);
        await tx.commit();
        expect((await mine('scheduled')).map((row) => row.partitionKey)).toEqual([rows.key('pmx/timeout/3')]);
        // A row already pending is not a scheduled one: it stays.
        expect((await mine('pending')).map((row) => row.partitionKey)).toEqual([rows.key('pm/timeout/4')]);
      });

      it('cancelScheduled in the transaction that schedules also removes the new row', async () => {
        const tx = await provider.begin();
        await store.append(tx, [rows.row('pm/timeout/9', 1, { deliverAt: inAnHour() })]);
        await store.cancelScheduled(tx, `${rows.key('pm')}/timeout/`);
        await tx.commit();
        expect(await mine('scheduled')).toHaveLength(0);
      });
    });

    describe('maintenance', () => {
      it('counts rows per status for one broker, with the age of the oldest pending row', async () => {
        const empty = await store.counts(rows.broker);
        expect(empty).toEqual({ pending: 0, processing: 0, published: 0, failed: 0, abandoned: 0, scheduled: 0, oldestPendingAgeMs: null });
        await append(rows.row('a', 1), rows.row('b', 1), rows.row('c', 1), rows.row('d', 1), rows.row('e', 1));
        await append(rows.row('x', 1, { targetBroker: `${rows.broker}-other` }));
        const [a, b, c, d] = await claim('w1', 4);
        await store.markPublished('w1', [a!.id]);
        await store.markFailed('w1', [{ id: b!.id, error: 'e', nextRetryAt: new Date(Date.now() + 60000), abandon: false }]);
        await store.markFailed('w1', [{ id: c!.id, error: 'e', nextRetryAt: new Date(), abandon: true }]);
        void d;
        await sleep(20);
        const counts = await store.counts(rows.broker);
        expect(counts).toMatchObject({ pending: 1, processing: 1, published: 1, failed: 1, abandoned: 1 });
        expect(counts.oldestPendingAgeMs).toBeGreaterThanOrEqual(10);
        const all = await store.counts();
        expect(all.pending).toBeGreaterThanOrEqual(2);
      });

      it('lists rows by status, oldest first, up to the limit', async () => {
        await append(rows.row('c', 1), rows.row('a', 1), rows.row('b', 1));
        const [taken] = await claim('w1', 1);
        await store.markPublished('w1', [taken!.id]);
        const pending = (await store.list({ status: 'pending', limit: 100000 })).filter((r) => r.targetBroker === rows.broker);
        expect(labels(pending)).toEqual(['c1', 'a1', 'b1'].filter((label) => label !== labels([taken!])[0]));
        expect(labels(await mine('published'))).toEqual(labels([taken!]));
        expect(labels(await mine())).toEqual(['c1', 'a1', 'b1']);
        expect(await store.list({ status: 'pending', limit: 1 })).toHaveLength(1);
      });

      it('retry puts abandoned and failed rows back to pending with a fresh attempt count', async () => {
        await append(rows.row('a', 1), rows.row('b', 1), rows.row('c', 1));
        const [a, b, c] = byLabels(await claim('w1', 3), 'a1', 'b1', 'c1');
        await store.markFailed('w1', [
          { id: a!.id, error: 'e', nextRetryAt: new Date(), abandon: true },
          { id: b!.id, error: 'e', nextRetryAt: new Date(Date.now() + 60000), abandon: false },
        ]);
        await store.markPublished('w1', [c!.id]);
        expect(await store.retry({ ids: [b!.id, c!.id] })).toBe(1);
        const byId = new Map((await mine()).map((r) => [r.id, r]));
        expect(byId.get(b!.id)).toMatchObject({ status: 'pending', retryCount: 0, nextRetryAt: null });
        expect(byId.get(c!.id)!.status).toBe('published');
        expect(byId.get(a!.id)!.status).toBe('abandoned');
        expect(await store.retry({ allAbandoned: true })).toBeGreaterThanOrEqual(1);
        expect((await mine()).find((r) => r.id === a!.id)).toMatchObject({ status: 'pending', retryCount: 0 });
        expect(keysOf(await claim('w1'))).toEqual(['a1', 'b1']);
      });

      it('cleanup deletes, in batches, published and abandoned rows older than their cut-offs', async () => {
        await append(...['a', 'b', 'c', 'd', 'e'].map((k) => rows.row(k, 1)), rows.row('f', 1), rows.row('g', 1));
        const claimed = await claim('w1', 7);
        const [a, b, c, d, e, f, g] = byLabels(claimed, 'a1', 'b1', 'c1', 'd1', 'e1', 'f1', 'g1');
        await store.markPublished(
          'w1',
          [a, b, c, d, e].map((row) => row!.id),
        );
        await store.markFailed('w1', [{ id: f!.id, error: 'e', nextRetryAt: new Date(), abandon: true }]);
        await store.release('w1', [g!.id]);

        const past = new Date(Date.now() - 3600_000);
        expect(await store.cleanup({ publishedBefore: past, abandonedBefore: past, batchSize: 2 })).toEqual({ published: 0, abandoned: 0 });
        await sleep(10);
        const future = new Date(Date.now() + 1000);
        const result = await store.cleanup({ publishedBefore: future, abandonedBefore: future, batchSize: 2 });
        expect(result.published).toBeGreaterThanOrEqual(5);
        expect(result.abandoned).toBeGreaterThanOrEqual(1);
        const left = await mine();
        expect(keysOf(left)).toEqual(['g1']);
        expect(left[0]!.status).toBe('pending');
      });

      it('cleanup keeps published rows when only the abandoned cut-off has passed', async () => {
        await append(rows.row('a', 1), rows.row('b', 1));
        const [first, second] = await claim('w1', 2);
        await store.markPublished('w1', [first!.id]);
        await store.markFailed('w1', [{ id: second!.id, error: 'e', nextRetryAt: new Date(), abandon: true }]);
        await sleep(10);
        await store.cleanup({ publishedBefore: new Date(Date.now() - 3600_000), abandonedBefore: new Date(Date.now() + 1000), batchSize: 100 });
        expect(labels(await mine())).toEqual(labels([first!]));
      });
    });

    describe('onAppended', () => {
      it('signals after a commit that appended rows, not after a rollback, until unsubscribed', async () => {
        let calls = 0;
        const stop = await store.onAppended(() => {
          calls += 1;
        });
        try {
          const rolledBack = await provider.begin();
          await store.append(rolledBack, [rows.row('a', 1)]);
          await rolledBack.rollback();
          await sleep(300);
          expect(calls).toBe(0);
          await append(rows.row('a', 1));
          for (let i = 0; i < 100 && calls === 0; i++) await sleep(20);
          expect(calls).toBeGreaterThanOrEqual(1);
        } finally {
          await stop();
        }
        const seen = calls;
        await append(rows.row('b', 1));
        await sleep(300);
        expect(calls).toBe(seen);
      });
    });
  });
}
