/**
 * A read model: the history of one order for its customer ("placed, confirmed, paid"), kept
 * by OrderTimelineProjector from the Order stream and identified by the order's id.
 *
 * Entries are appended strictly in the order's stream order, each exactly once. With several
 * workers an event can arrive before its predecessor (another worker still holds that one); it
 * then waits here, and is appended as soon as the gap before it is filled.
 */
import { BaseAggregate, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { TimelineEntry, type TimelineStep } from './timeline-entry.js';

export interface TimelineStepAt {
  step: TimelineStep;
  note: string;
  /** The event's position in the order's stream. */
  position: number;
  occurredAt: Date;
}

@domain.aggregate()
export class OrderTimeline extends BaseAggregate {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.list({ of: () => TimelineEntry, required: true }) entries!: TimelineEntry[];
  /** Steps that arrived before one of their predecessors, in arrival order. */
  @field.list({ of: () => TimelineEntry, required: true }) waiting!: TimelineEntry[];

  static start(orderId: string): OrderTimeline {
    return OrderTimeline.create({ orderId, entries: [], waiting: [] });
  }

  /** The stream position the next entry must have. */
  nextPosition(): number {
    return this.entries.length;
  }

  /** Records a step once, in stream order; false when it was recorded (or is waiting) already. */
  record(step: TimelineStepAt): boolean {
    const known = step.position < this.nextPosition() || this.waiting.some((entry) => entry.position === step.position);
    if (known) return false;
    const waiting = [...this.waiting, TimelineEntry.create(step)];
    const entries = [...this.entries];
    for (let next = waiting.find((e) => e.position === entries.length); next; next = waiting.find((e) => e.position === entries.length)) {
      // recordedAt: when the step joined the timeline, not when its event first arrived.
      entries.push(TimelineEntry.create({ step: next.step, note: next.note, position: next.position, occurredAt: next.occurredAt }));
      waiting.splice(waiting.indexOf(next), 1);
    }
    this.atomicChange(() => {
      this.entries = entries;
      this.waiting = waiting;
    });
    return true;
  }

  steps(): TimelineStep[] {
    return this.entries.map((entry) => entry.step);
  }
}
