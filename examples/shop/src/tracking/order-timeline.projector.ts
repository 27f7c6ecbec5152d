/**
 * Keeps each order's timeline from the Order stream. Deliveries are at-least-once and, with
 * several workers, two events of one order can be handled at once, so each event is placed by
 * its stream position: one already recorded is skipped, one that arrives ahead of its
 * predecessor is refused (the server retries it shortly).
 */
import { BaseEventHandler, handle, type BaseEvent } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderCancelled, OrderConfirmed, OrderPaid, OrderPlaced } from '../orders/order.js';
import { EarlierEventPending } from './earlier-event-pending.error.js';
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
  const timeline = (await timelines.find(orderId)) ?? OrderTimeline.create({ orderId, entries: [] });
  const position = streamPosition(event);
  const expected = timeline.nextPosition();
  if (position < expected) return;
  if (position > expected) throw new EarlierEventPending(event._metadata!.headers.stream, expected, position);
  timeline.append(step, note, position, new Date(event._metadata!.headers.time));
  await timelines.add(timeline);
}
