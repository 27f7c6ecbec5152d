/**
 * A projection: the history of one order for its customer ("placed, confirmed, paid"), kept by
 * OrderTimelineProjector from the Order stream and identified by the order's id. Each event of
 * the order appends one entry, in the order the order raised them. Read it with
 * `domain.viewFor(OrderTimeline)` or the TimelineOfOrder query; rebuild it with
 * `protean-ts projection rebuild OrderTimeline` where the order events are in the event store.
 */
import { BaseProjection, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { TimelineEntry, type TimelineStep } from './timeline-entry.js';

export interface TimelineStepAt {
  step: TimelineStep;
  note: string;
  eventId: string;
  occurredAt: Date;
}

@domain.projection()
export class OrderTimeline extends BaseProjection {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.list({ of: () => TimelineEntry, required: true }) entries!: TimelineEntry[];

  static start(orderId: string): OrderTimeline {
    return OrderTimeline.create({ orderId, entries: [] });
  }

  record(step: TimelineStepAt): void {
    this.entries = [...this.entries, TimelineEntry.create(step)];
  }

  steps(): TimelineStep[] {
    return this.entries.map((entry) => entry.step);
  }
}
