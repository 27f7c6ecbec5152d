/**
 * "Where is my order?": the steps of one order's timeline, oldest first, or null when the order
 * is unknown (or its first event is not projected yet).
 */
import { BaseQuery, BaseQueryHandler, field, read } from '@protean-ts/core';
import { domain } from '../shop.js';
import { OrderTimeline } from './order-timeline.js';
import type { TimelineStep } from './timeline-entry.js';

export interface TimelineView {
  orderId: string;
  steps: { step: TimelineStep; note: string; occurredAt: Date }[];
}

@domain.query({ partOf: OrderTimeline })
export class TimelineOfOrder extends BaseQuery<TimelineView | null> {
  @field.identifier({ required: true }) orderId!: string;
}

@domain.queryHandler({ partOf: OrderTimeline })
export class TimelineQueries extends BaseQueryHandler {
  @read(TimelineOfOrder)
  async ofOrder(query: TimelineOfOrder): Promise<TimelineView | null> {
    const timeline = await domain.viewFor(OrderTimeline).find(query.orderId);
    if (!timeline) return null;
    return { orderId: timeline.orderId, steps: timeline.entries.map((e) => ({ step: e.step, note: e.note, occurredAt: e.occurredAt })) };
  }
}
