/**
 * The projector of OrderTimeline: the order's placement starts a timeline, and every later event
 * of the order adds its step. The server hands this projector each order's events
 * one at a time, in the order the order raised them, and each once (per-key order and the inbox,
 * see docs/subscriptions.md), so it only appends.
 */
import { BaseProjector, on, type BaseEvent } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderCancelled, OrderConfirmed, OrderPaid, OrderPlaced } from '../orders/order.js';
import { OrderTimeline, type TimelineStepAt } from './order-timeline.js';
import type { TimelineStep } from './timeline-entry.js';

@domain.projector({ projectorFor: OrderTimeline, aggregates: [Order] })
export class OrderTimelineProjector extends BaseProjector {
  @on(OrderPlaced)
  async placed(event: OrderPlaced): Promise<void> {
    const units = event.items.reduce((sum, item) => sum + item.quantity, 0);
    const timeline = OrderTimeline.start(event.orderId);
    timeline.record(stepOf(event, 'placed', `${units} item${units === 1 ? '' : 's'}, ${event.total.format()}`));
    await domain.repositoryFor(OrderTimeline).add(timeline);
  }

  @on(OrderConfirmed)
  async confirmed(event: OrderConfirmed): Promise<void> {
    await append(event.orderId, stepOf(event, 'confirmed', 'stock reserved'));
  }

  @on(OrderPaid)
  async paid(event: OrderPaid): Promise<void> {
    await append(event.orderId, stepOf(event, 'paid', `${event.amount.format()} captured (${event.paymentReference})`));
  }

  @on(OrderCancelled)
  async cancelled(event: OrderCancelled): Promise<void> {
    await append(event.orderId, stepOf(event, 'cancelled', event.reason));
  }
}

function stepOf(event: BaseEvent, step: TimelineStep, note: string): TimelineStepAt {
  const { headers } = event._metadata!;
  return { step, note, eventId: headers.id, occurredAt: new Date(headers.time) };
}

async function append(orderId: string, step: TimelineStepAt): Promise<void> {
  const timelines = domain.repositoryFor(OrderTimeline);
  const timeline = await timelines.get(orderId);
  timeline.record(step);
  await timelines.add(timeline);
}
