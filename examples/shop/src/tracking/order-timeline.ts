/**
 * A read model: the history of one order for its customer ("placed, confirmed, paid"), kept
 * by OrderTimelineProjector from the Order stream and identified by the order's id. Entries are
 * appended strictly in the order's stream order, each exactly once.
 */
import { BaseAggregate, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { TimelineEntry, type TimelineStep } from './timeline-entry.js';

@domain.aggregate()
export class OrderTimeline extends BaseAggregate {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.list({ of: () => TimelineEntry, required: true }) entries!: TimelineEntry[];

  /** The stream position the next entry must have. */
  nextPosition(): number {
    return this.entries.length;
  }

  append(step: TimelineStep, note: string, position: number, occurredAt: Date): void {
    this.entries = [...this.entries, TimelineEntry.create({ step, note, position, occurredAt })];
  }

  steps(): TimelineStep[] {
    return this.entries.map((entry) => entry.step);
  }
}
