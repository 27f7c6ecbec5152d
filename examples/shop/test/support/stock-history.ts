/**
 * The event-sourced StockItem, checked the same way on every event store the shop runs on
 * (stock-history.unit.spec.ts: memory; stock-history.int.spec.ts: PostgreSQL): its history
 * replays, a load past snapshot_threshold writes a snapshot the next load starts from, and a
 * StockReceived stored at version 1 loads and reaches handlers as version 2.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { envelopeChecksum, serializeMessage, type EventStore, type MessageEnvelope, type MessageMetadata, type StoredEvent } from '@protean-ts/core';
import { CatalogueEntry, CatalogueProjector, DECLINED_CARD, domain, Money, StockItem, type StockReceivedV1 } from '../../src/domain.js';
import { givenStock, loggedErrors, whenOrdering } from './shop-fixture.js';

export interface StockHistoryTarget {
  /** Opens the shop on this store (a fresh domain); called once per test. */
  open(): Promise<void>;
  close(): Promise<void>;
}

const stock = () => domain.repositoryFor(StockItem);
const eventStore = (): EventStore => domain.providers.get('default')!.eventStore;
const streamOf = (sku: string) => `shop::stock_item-${sku}`;
const history = async (sku: string) => (await eventStore().readStream(streamOf(sku))).map((e) => e.type.replace(/^Shop\./, ''));

/**
 * Appends a StockReceived the way the shop wrote it while the event was at version 1
 * (`onHand` rather than `onHandAfter`, type `Shop.StockReceived.v1`, checksum over that data):
 * what a deployment of today's shop finds in a store written by the older one.
 */
async function givenStoredV1Delivery(sku: string, v1: StockReceivedV1): Promise<StoredEvent> {
  const item = await stock().get(sku);
  item.receive(v1.quantity);
  const current = serializeMessage(item.pendingEvents().at(-1)!);
  const envelope: MessageEnvelope = { data: { ...v1 }, metadata: structuredClone(current.metadata) };
  envelope.metadata.headers.type = 'Shop.StockReceived.v1';
  envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
  const provider = domain.providers.get('default')!;
  const tx = await provider.begin();
  try {
    const record = {
      messageId: envelope.metadata.headers.id,
      type: envelope.metadata.headers.type,
      data: envelope.data,
      metadata: envelope.metadata as unknown as Record<string, unknown>,
    };
    await eventStore().append(tx, streamOf(sku), [record], { expectedVersion: item._version - 1 });
    await tx.commit();
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  return (await eventStore().readStream(streamOf(sku))).at(-1)!;
}

export function describeStockHistory(storeName: string, target: StockHistoryTarget): void {
  describe(`the event-sourced StockItem (${storeName} event store)`, () => {
    afterEach(async () => {
      expect(loggedErrors).toEqual([]);
      await target.close();
    });

    it("is its history: catalogued, received, reserved and released units replay into today's stock", async () => {
      await target.open();
      await givenStock('CUP', 10, 6.5);
      await whenOrdering({ CUP: 2 });
      await whenOrdering({ CUP: 3 }, DECLINED_CARD);

      expect(await history('CUP')).toEqual(['ProductCatalogued.v1', 'StockReceived.v2', 'UnitsReserved.v1', 'UnitsReserved.v1', 'UnitsReleased.v1']);
      const cup = await stock().get('CUP');
      expect([cup.name, cup.price.format(), cup.onHand, cup.reserved, cup._version]).toEqual(['Product CUP', 'EUR 6.50', 10, 2, 4]);
      // Any earlier moment replays too: after the second reservation, before its release.
      const before = await stock().get('CUP', { atVersion: 3 });
      expect([before.onHand, before.reserved]).toEqual([10, 5]);
    });

    it('writes a snapshot once a load replayed snapshot_threshold (5) events, and the next load starts from it', async () => {
      await target.open();
      expect(domain.config.snapshot_threshold).toBe(5);
      const mug = StockItem.catalogue('MUG', 'Mug', Money.of(9));
      for (let delivery = 0; delivery < 4; delivery++) mug.receive(10);
      await stock().add(mug);
      // Adding writes events only; no load has replayed any yet.
      expect(await eventStore().latestSnapshot(streamOf('MUG'))).toBeNull();

      const loaded = await stock().get('MUG');
      expect(await eventStore().latestSnapshot(streamOf('MUG'))).toMatchObject({
        version: 4,
        type: 'Shop.StockItem.v1',
        data: { sku: 'MUG', name: 'Mug', onHand: 40, reserved: 0 },
      });

      loaded.reserve('order-1', 15);
      loaded.reserve('order-2', 5);
      await stock().add(loaded);
      const reads = vi.spyOn(eventStore(), 'readStream');
      try {
        const again = await stock().get('MUG');
        // Only the two events after the snapshot were read.
        expect(reads.mock.calls.map((call) => call[1]?.from)).toEqual([5]);
        expect([again.onHand, again.reserved, again._version]).toEqual([40, 20, 6]);
      } finally {
        reads.mockRestore();
      }
      // Two events replayed since the snapshot: below the threshold, the snapshot stays at 4.
      expect((await eventStore().latestSnapshot(streamOf('MUG')))!.version).toBe(4);
    });

    it('reads a StockReceived stored at version 1 as version 2, in loads and in handlers, and never rewrites it', async () => {
      await target.open();
      await givenStock('KETTLE', 1, 45);
      const stored = await givenStoredV1Delivery('KETTLE', { sku: 'KETTLE', quantity: 4, onHand: 5 });
      expect([stored.type, stored.data]).toEqual(['Shop.StockReceived.v1', { sku: 'KETTLE', quantity: 4, onHand: 5 }]);

      const kettle = await stock().get('KETTLE');
      expect([kettle.onHand, kettle._version]).toEqual([5, 2]);

      // The catalogue projector gets the upcast event, with onHandAfter.
      const envelope = { data: stored.data, metadata: stored.metadata as unknown as MessageMetadata };
      expect(await domain.handleMessage(envelope, { handler: CatalogueProjector })).toBe('handled');
      const entry = await domain.repositoryFor(CatalogueEntry).get('KETTLE');
      expect([entry.unitsReceived, entry.onHandAfterLastDelivery]).toEqual([5, 5]);

      // New events are written at today's version; the old record stays as it was stored.
      kettle.receive(2);
      await stock().add(kettle);
      const records = await eventStore().readStream(streamOf('KETTLE'));
      expect(records.map((r) => r.type)).toEqual(['Shop.ProductCatalogued.v1', 'Shop.StockReceived.v2', 'Shop.StockReceived.v1', 'Shop.StockReceived.v2']);
      expect(records[2]).toEqual(stored);
      expect(records[3]!.data).toMatchObject({ quantity: 2, onHandAfter: 7 });
      expect((await stock().get('KETTLE')).onHand).toBe(7);
    });
  });
}
