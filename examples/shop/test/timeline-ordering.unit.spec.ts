/**
 * With several workers, two events of one order can reach the timeline projector in either
 * order. With event_processing = "async" nothing is handled until delivered, so this test
 * delivers each event to one handler itself, as the server's subscriptions would, in the order
 * a race between two workers could produce.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClassRef, MessageEnvelope } from '@protean-ts/core';
import { domain, OrderConfirmed, OrderPlaced, OrderTimeline, OrderTimelineProjector, StockOutcomes, StockReservations, StockReserved } from '../src/domain.js';
import { closeShop, committedMessages, givenStock, loggedErrors, openShop, timelineOf, whenOrdering } from './support/shop-fixture.js';

async function committed(event: ClassRef, orderId: string): Promise<MessageEnvelope> {
  const type = domain.messageTypeOf(event);
  const found = (await committedMessages()).find((m) => m.metadata.headers.type === type && m.data.orderId === orderId);
  if (!found) throw new Error(`no ${event.name} committed for ${orderId}`);
  return found;
}

const deliver = (envelope: MessageEnvelope, handler: ClassRef) => domain.handleMessage(envelope, { handler });

describe('the order timeline', () => {
  it('appends steps in stream order whatever order they arrive in, each once', () => {
    const timeline = OrderTimeline.start('order-1');
    const at = (position: number) => ({ note: `step ${position}`, position, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)) });

    expect(timeline.record({ step: 'paid', ...at(2) })).toBe(true);
    expect(timeline.record({ step: 'confirmed', ...at(1) })).toBe(true);
    expect(timeline.steps()).toEqual([]);
    expect(timeline.waiting.map((e) => e.step)).toEqual(['paid', 'confirmed']);

    expect(timeline.record({ step: 'placed', ...at(0) })).toBe(true);
    expect(timeline.steps()).toEqual(['placed', 'confirmed', 'paid']);
    expect(timeline.entries.map((e) => e.position)).toEqual([0, 1, 2]);
    expect(timeline.waiting).toEqual([]);

    expect(timeline.record({ step: 'confirmed', ...at(1) })).toBe(false);
    expect(timeline.record({ step: 'paid', ...at(2) })).toBe(false);
    expect(timeline.steps()).toEqual(['placed', 'confirmed', 'paid']);
  });

  describe('fed by the projector', () => {
    beforeEach(() => openShop({ event_processing: 'async' }));
    afterEach(() => expect(loggedErrors).toEqual([]));
    afterAll(() => closeShop());

    it('holds an event that overtook its predecessor, then records both in stream order, once', async () => {
      await givenStock('CUP', 5);
      const orderId = await whenOrdering({ CUP: 1 });
      const placed = await committed(OrderPlaced, orderId);
      await deliver(placed, StockReservations);
      await deliver(await committed(StockReserved, orderId), StockOutcomes);
      const confirmed = await committed(OrderConfirmed, orderId);

      // One worker handles OrderConfirmed while another still holds OrderPlaced.
      await deliver(confirmed, OrderTimelineProjector);
      expect(await timelineOf(orderId)).toEqual([]);

      await deliver(placed, OrderTimelineProjector);
      await deliver(confirmed, OrderTimelineProjector);
      await deliver(placed, OrderTimelineProjector);

      expect(await timelineOf(orderId)).toEqual(['placed', 'confirmed']);
      expect((await domain.repositoryFor(OrderTimeline).get(orderId)).waiting).toEqual([]);
    });
  });
});
