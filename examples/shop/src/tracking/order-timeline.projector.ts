/**
 * Keeps each order's timeline from the Order stream. Deliveries are at-least-once and, with
 * several workers, two events of one order can be handled at once by different processes, so
 * each event is placed by its stream position: the timeline ignores one it has, and holds one
 * that overtook its predecessor until that arrives (see OrderTimeline.record).
 */
import { BaseEventHandler, handle, type BaseEvent } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderCancelled, OrderConfirmed, OrderPaid, OrderPlaced } from '../orders/order.js';
import { OrderTimeline } from './order-timeline.js';
import { streamPosition } from './stream-position.js';
import type { TimelineStep } from './timeline-entry.js';

@domain.eventHandler({ streamCategory: Order })
export class OrderTimelineProjector extends BaseEventHandler {
  @handle(OrderPlaced)
  async placed(event: OrderPlaced): Promise<void> {
    const units = event.items.reduce((sum, item) => sum + item.quantity, 0);
    await record(event, event.orderId, 'placed', `${units} item${units === 1 ? '' : 's'}, ${event.total.format()}`);
  }

  @handle(OrderConfirmed)
  async confirmed(event: OrderConfirmed): Promise<void> {
    await record(event, event.orderId, 'confirmed', 'stock reserved');
  }

  @handle(OrderPaid)
  async paid(event: OrderPaid): Promise<void> {
    await record(event, event.orderId, 'paid', `${event.amount.format()} captured (${event.paymentReference})`);
  }

  @handle(OrderCancelled)
  async cancelled(event: OrderCancelled): Promise<void> {
    await record(event, event.orderId, 'cancelled', event.reason);
  }
}

async function record(event: BaseEvent, orderId: string, step: TimelineStep, note: string): Promise<void> {
  const timelines = domain.repositoryFor(OrderTimeline);
  const timeline = (await timelines.find(orderId)) ?? OrderTimeline.start(orderId);
  const occurredAt = new Date(event._metadata!.headers.time);
  // Two deliveries racing to start one timeline both insert it; the loser's unit of work fails
  // on the duplicate id and its retry finds the timeline.
  if (timeline.record({ step, note, position: streamPosition(event), occurredAt })) await timelines.add(timeline);
}
