/**
 * The behaviour every `OutboxStore` must show, as a vitest suite adapters run against their own
 * store (memory here, PostgreSQL in @protean-ts/outbox): transactional append, claim order per
 * partition key, lock expiry, `lockedBy` guards, failure/abandon, release, retry, cleanup,
 * counts and the append signal. Append and claim here; settling rows in outbox-conformance-marking.ts,
 * due times and maintenance in outbox-conformance-maintenance.ts. Imports vitest: test files only.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseProvider, OutboxStore } from '@protean-ts/core';
import { outboxSuiteContext, type OutboxConformanceHarness } from './outbox-conformance-context.js';
import { sleep, type RowFactory } from './outbox-conformance-fixtures.js';
import { describeOutboxMaintenance } from './outbox-conformance-maintenance.js';
import { describeOutboxMarking } from './outbox-conformance-marking.js';

export type { OutboxConformanceHarness } from './outbox-conformance-context.js';

export function describeOutboxStoreConformance(name: string, harness: OutboxConformanceHarness): void {
  describe(`OutboxStore conformance: ${name}`, () => {
    const context = outboxSuiteContext(harness);
    let provider: DatabaseProvider;
    let store: OutboxStore;
    let rows: RowFactory;
    beforeEach(() => {
      ({ provider, store, rows } = context);
    });
    const { append, mine, claim, keysOf, byLabels } = context;

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

      it('concurrent appends to one key get consecutive sequences, in commit order', async () => {
        const txs = await Promise.all(Array.from({ length: 3 }, () => provider.begin()));
        await Promise.all(txs.map((tx, i) => store.append(tx, [rows.row('a', i + 1, { correlationId: `c${i}` })])));
        await Promise.all(txs.map((tx) => tx.commit()));
        expect((await mine()).map((row) => row.sequence).sort()).toEqual([1, 2, 3]);
      });

      it('appends of one key in transactions open side by side are numbered in the order they commit, not the order they appended', async () => {
        // Committed one after the other, so the order is the database's, not the order in which
        // concurrent commits' answers happen to reach the client (the same event-loop turn).
        const txs = await Promise.all(Array.from({ length: 3 }, () => provider.begin()));
        for (const [i, tx] of txs.entries()) await store.append(tx, [rows.row('a', i + 1, { correlationId: `c${i}` })]);
        for (const i of [2, 0, 1]) await txs[i]!.commit();
        const stored = (await mine()).sort((x, y) => x.sequence - y.sequence);
        expect(stored.map((row) => [row.sequence, row.correlationId])).toEqual([
          [1, 'c2'],
          [2, 'c0'],
          [3, 'c1'],
        ]);
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

    describeOutboxMarking(context);
    describeOutboxMaintenance(context);
  });
}
