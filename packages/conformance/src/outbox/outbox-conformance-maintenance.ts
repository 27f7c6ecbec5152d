/**
 * Outbox rows over time: due times (`deliverAt`, `promoteDue`, `cancelScheduled`), counts,
 * listings, retry, cleanup and the append signal. Part of `describeOutboxStoreConformance`;
 * imports vitest.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseProvider, OutboxStore } from '@protean-ts/core';
import type { OutboxSuiteContext } from './outbox-conformance-context.js';
import { sleep, type RowFactory } from './outbox-conformance-fixtures.js';

export function describeOutboxMaintenance(context: OutboxSuiteContext): void {
  let provider: DatabaseProvider;
  let store: OutboxStore;
  let rows: RowFactory;
  beforeEach(() => {
    ({ provider, store, rows } = context);
  });
  const { append, mine, claim, labels, keysOf, byLabels } = context;

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
}
