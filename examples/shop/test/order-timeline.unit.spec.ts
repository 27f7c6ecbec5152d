/**
 * The order timeline projector is a plain handler: it appends one entry per Order event and
 * leaves order and redelivery to the framework. On the embedded default the in-process server
 * runs it; without the server this test delivers the messages itself, through the
 * subscriptions' inboxes, the way the server does.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClassRef, MessageEnvelope } from '@protean-ts/core';
import {
  ConfirmOrder,
  domain,
  Order,
  OrderCommands,
  OrderConfirmed,
  OrderFulfilment,
  OrderPlaced,
  OrderTimeline,
  OrderTimelineProjector,
  ReservationCommands,
  ReserveStock,
  StockReserved,
} from '../src/domain.js';
import { closeShop, committedMessages, givenStock, loggedErrors, openShop, whenOrdering } from './support/shop-fixture.js';

async function committed(event: ClassRef, orderId: string): Promise<MessageEnvelope> {
  const type = domain.messageTypeOf(event);
  const found = (await committedMessages()).find((m) => m.metadata.headers.type === type && m.data.orderId === orderId);
  if (!found) throw new Error(`no ${event.name} committed for ${orderId}`);
  return found;
}

/** Delivers `envelope` to one handler's subscription as the server would, through its inbox. */
const deliver = (envelope: MessageEnvelope, handler: ClassRef & { name: string }) =>
  domain.handleMessage(envelope, { handler, inbox: { subscription: handler.name, brokerMessageId: `${envelope.metadata.headers.id}-0` } });

describe('the order timeline', () => {
  afterEach(() => expect(loggedErrors).toEqual([]));
  afterAll(() => closeShop());

  describe('on the embedded default', () => {
    beforeEach(() => openShop());

    it('lists every event of the order once, in the order the order raised them', async () => {
      await givenStock('CUP', 5, 6.5);

      const orderId = await whenOrdering({ CUP: 2 });

      // The Order category's events (the commands sent to orders share its category name).
      const orderEvents = (await committedMessages()).filter(
        (m) => m.metadata.domain.kind === 'EVENT' && m.metadata.domain.streamCategory === domain.registry.streamCategoryOf(Order),
      );
      const timeline = await domain.repositoryFor(OrderTimeline).get(orderId);
      expect(timeline.entries.map((e) => e.eventId)).toEqual(orderEvents.map((m) => m.metadata.headers.id));
      expect(timeline.entries.map((e) => `${e.step}: ${e.note}`)).toEqual([
        'placed: 2 items, EUR 13.00',
        'confirmed: stock reserved',
        expect.stringMatching(/^paid: EUR 13\.00 captured \(ch_\w{12}\)$/),
      ]);
      expect(timeline.entries.every((e) => e.recordedAt! >= e.occurredAt)).toBe(true);
    });
  });

  describe('fed through its inbox', () => {
    beforeEach(() => openShop(undefined, { server: false }));

    it('is handed each event once and after its predecessor, so it only appends', async () => {
      await givenStock('CUP', 5);
      const orderId = await whenOrdering({ CUP: 1 });
      const placed = await committed(OrderPlaced, orderId);
      // The fulfilment's first steps, by hand: reserve the stock, confirm the order.
      await deliver(placed, OrderFulfilment);
      await deliver(await committed(ReserveStock, orderId), ReservationCommands);
      await deliver(await committed(StockReserved, orderId), OrderFulfilment);
      await deliver(await committed(ConfirmOrder, orderId), OrderCommands);
      const confirmed = await committed(OrderConfirmed, orderId);

      // OrderConfirmed overtook OrderPlaced (another worker still holds it): it waits.
      expect(await deliver(confirmed, OrderTimelineProjector)).toBe('early');
      expect(await domain.repositoryFor(OrderTimeline).find(orderId)).toBeUndefined();

      expect(await deliver(placed, OrderTimelineProjector)).toBe('handled');
      expect(await deliver(confirmed, OrderTimelineProjector)).toBe('handled');
      // Redeliveries, after a worker died before acknowledging them.
      expect(await deliver(placed, OrderTimelineProjector)).toBe('duplicate');
      expect(await deliver(confirmed, OrderTimelineProjector)).toBe('duplicate');

      const timeline = await domain.repositoryFor(OrderTimeline).get(orderId);
      expect(timeline.entries.map((e) => [e.step, e.eventId])).toEqual([
        ['placed', placed.metadata.headers.id],
        ['confirmed', confirmed.metadata.headers.id],
      ]);
    });
  });
});
