/**
 * Orders the events of several aggregates as they were raised: each aggregate's own order is
 * kept exactly, and between aggregates the earlier `headers.time` goes first.
 */
import type { BaseEvent } from '../elements/base-event.js';

export function mergeInRaiseOrder(perAggregate: readonly (readonly BaseEvent[])[]): BaseEvent[] {
  const queues = perAggregate.map((events) => [...events]).filter((q) => q.length > 0);
  const merged: BaseEvent[] = [];
  while (queues.length) {
    let pick = 0;
    for (let i = 1; i < queues.length; i++) {
      if (timeOf(queues[i]![0]!) < timeOf(queues[pick]![0]!)) pick = i;
    }
    merged.push(queues[pick]!.shift()!);
    if (queues[pick]!.length === 0) queues.splice(pick, 1);
  }
  return merged;
}

function timeOf(event: BaseEvent): string {
  return event._metadata?.headers.time ?? '';
}
