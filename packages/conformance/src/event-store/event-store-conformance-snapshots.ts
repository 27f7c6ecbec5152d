/**
 * Snapshots and argument checks of an `EventStore`: the latest snapshot per stream, snapshots in
 * transactions and their checksums, and the refusals of malformed names, versions, pages,
 * cursors and events before any I/O. Part of `describeEventStoreConformance`; imports vitest.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ALL_STREAMS, InvalidEventStoreRequestError, InvalidStreamNameError, snapshotChecksum, type DatabaseProvider, type EventStore } from '@protean-ts/core';
import { inTransaction, type EventFactory } from './event-store-conformance-fixtures.js';

interface Context {
  provider: DatabaseProvider;
  store: EventStore;
  f: EventFactory;
}

export function describeSnapshotsAndArgumentChecks(context: () => Context): void {
  let provider: DatabaseProvider;
  let store: EventStore;
  let f: EventFactory;
  beforeEach(() => {
    ({ provider, store, f } = context());
  });

  describe('snapshots', () => {
    it('keeps the latest snapshot per stream; an older version does not replace a newer one', async () => {
      const stream = f.stream();
      expect(await store.latestSnapshot(stream)).toBeNull();
      await store.saveSnapshot({ streamName: stream, version: 3, type: 'Conformance.Thing.v1', data: { total: 3 } });
      await store.saveSnapshot({ streamName: stream, version: 2, type: 'Conformance.Thing.v1', data: { total: 2 } });
      expect(await store.latestSnapshot(stream)).toMatchObject({ streamName: stream, version: 3, type: 'Conformance.Thing.v1', data: { total: 3 } });
      await store.saveSnapshot({ streamName: stream, version: 9, type: 'Conformance.Thing.v2', data: { total: 9, items: ['a'] } });
      const latest = await store.latestSnapshot(stream);
      expect(latest).toMatchObject({ version: 9, type: 'Conformance.Thing.v2', data: { total: 9, items: ['a'] } });
      expect(latest!.time).toBeInstanceOf(Date);
      expect(await store.latestSnapshot(f.stream())).toBeNull();
    });

    it('a snapshot saved in a transaction commits or rolls back with it', async () => {
      const stream = f.stream();
      const tx = await provider.begin();
      await store.saveSnapshot({ streamName: stream, version: 1, type: 'T.v1', data: { a: 1 } }, tx);
      expect(await store.latestSnapshot(stream, tx)).toMatchObject({ version: 1 });
      await tx.rollback();
      expect(await store.latestSnapshot(stream)).toBeNull();
      await inTransaction(
        () => provider.begin(),
        (t) => store.saveSnapshot({ streamName: stream, version: 2, type: 'T.v1', data: { a: 2 } }, t),
      );
      expect(await store.latestSnapshot(stream)).toMatchObject({ version: 2, data: { a: 2 } });
    });

    it('keeps the checksum saveSnapshot seals it with; replace keeps a snapshot over a later one, in a transaction too', async () => {
      const stream = f.stream();
      const bad = { streamName: stream, version: 999_999, type: 'T.v1', data: { a: 'forged', nested: { b: [1, 2.5, null] } } };
      await store.saveSnapshot(bad);
      expect(await store.latestSnapshot(stream)).toMatchObject({ ...bad, checksum: snapshotChecksum(bad) });
      const good = { streamName: stream, version: 4, type: 'T.v1', data: { a: 'rebuilt' } };
      await store.saveSnapshot(good);
      expect(await store.latestSnapshot(stream)).toMatchObject({ version: 999_999 });
      const tx = await provider.begin();
      await store.saveSnapshot(good, tx, { replace: true });
      expect(await store.latestSnapshot(stream, tx)).toMatchObject({ ...good, checksum: snapshotChecksum(good) });
      await tx.rollback();
      expect(await store.latestSnapshot(stream)).toMatchObject({ version: 999_999 });
      await store.saveSnapshot(good, undefined, { replace: true });
      expect(await store.latestSnapshot(stream)).toMatchObject({ ...good, checksum: snapshotChecksum(good) });
    });
  });

  describe('argument checks', () => {
    it('refuses malformed stream and category names with InvalidStreamNameError', async () => {
      for (const bad of ['', 'order-1', 'shop::order', 'shop::-1', '::order-1', 'shop::order-', 'sh op::order-1']) {
        await expect(store.readStream(bad)).rejects.toThrow(InvalidStreamNameError);
        await expect(store.streamVersion(bad)).rejects.toThrow(InvalidStreamNameError);
        await expect(store.lastEvent(bad)).rejects.toThrow(InvalidStreamNameError);
      }
      for (const bad of ['', 'order', 'shop::order-1', '$any', 'shop::']) {
        await expect(store.readCategory(bad)).rejects.toThrow(InvalidStreamNameError);
        await expect(store.readCategories([f.category, bad])).rejects.toThrow(InvalidStreamNameError);
      }
      await expect(store.readCategories([f.category, ALL_STREAMS])).rejects.toThrow(
        'readCategories() takes categories named <domain>::<category>; read every stream with readCategory("$all")',
      );
    });

    it('refuses bad versions, pages, cursors and events with InvalidEventStoreRequestError, before any I/O', async () => {
      const stream = f.stream();
      const tx = await provider.begin();
      try {
        for (const expectedVersion of [-2, 1.5, Number.NaN]) {
          await expect(store.append(tx, stream, f.events(1), { expectedVersion })).rejects.toThrow(InvalidEventStoreRequestError);
        }
        await expect(store.append(tx, stream, [])).rejects.toThrow(/events must be a non-empty array/);
        await expect(store.append(tx, stream, [{ ...f.events(1)[0]!, type: 'Happened' }])).rejects.toThrow(
          /events\[0\]\.type must look like Domain\.Class\.v1/,
        );
        await expect(store.append(tx, stream, [{ ...f.events(1)[0]!, messageId: '' }])).rejects.toThrow(InvalidEventStoreRequestError);
        await expect(store.append(tx, stream, [{ ...f.events(1)[0]!, data: [] as unknown as Record<string, unknown> }])).rejects.toThrow(
          InvalidEventStoreRequestError,
        );
      } finally {
        await tx.rollback();
      }
      await expect(store.readStream(stream, { limit: 0 })).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(store.readStream(stream, { from: -1 })).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(store.readStream(stream, { until: new Date('nonsense') })).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(store.readCategory(f.category, { after: { transactionId: -1, globalPosition: 0 } })).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(store.readCategories([])).rejects.toThrow('categories must be a non-empty array');
      await expect(store.readCategories([f.category], { limit: 0 })).rejects.toThrow(InvalidEventStoreRequestError);
      await expect(store.saveSnapshot({ streamName: stream, version: -1, type: 'T.v1', data: {} })).rejects.toThrow(InvalidEventStoreRequestError);
      expect(await store.streamVersion(stream)).toBe(-1);
    });
  });
}
