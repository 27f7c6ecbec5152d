/**
 * The subscriptions page's numbers: per stream subscription the broker's pending and lag for its
 * consumer group and its dead letters; per event-store subscription its dead letters.
 */
import type { Domain } from '@protean-ts/core';
import { planSubscriptions } from '@protean-ts/server';
import { DLQ_READ_LIMIT } from '../commands/dlq-targets.js';
import { eventStoreLetterCounts } from '../commands/dlq-event-store.js';

export interface SubscriptionView {
  group: string;
  role: string;
  stream: string;
  broker: string;
  source: 'stream' | 'event_store';
  /** Delivered and not yet acknowledged; null for event-store subscriptions. */
  pending: number | null;
  /** Not yet delivered; null when the broker cannot tell. */
  lag: number | null;
  exists: boolean;
  deadLetters: number;
}

export async function subscriptionsView(domain: Domain): Promise<SubscriptionView[]> {
  const plan = planSubscriptions(domain);
  const lettersByStream = new Map<string, Map<string, number>>();
  const views: SubscriptionView[] = [];
  for (const entry of plan.filter((p) => p.source === 'stream')) {
    const broker = domain.runtime.broker(entry.broker);
    const streamKey = `${entry.broker}\u0000${entry.stream}`;
    if (!lettersByStream.has(streamKey)) {
      const counts = new Map<string, number>();
      for (const letter of await broker.listDeadLetters(entry.stream, { count: DLQ_READ_LIMIT })) counts.set(letter.group, (counts.get(letter.group) ?? 0) + 1);
      lettersByStream.set(streamKey, counts);
    }
    const status = await broker.groupStatus(entry.stream, entry.group);
    views.push({
      group: entry.group, role: entry.role, stream: entry.stream, broker: entry.broker, source: 'stream',
      pending: status.pending, lag: status.lag, exists: status.exists, deadLetters: lettersByStream.get(streamKey)?.get(entry.group) ?? 0,
    });
  }
  const fromStore = plan.filter((p) => p.source === 'event_store');
  if (fromStore.length) {
    const counts = await eventStoreLetterCounts(domain, fromStore);
    for (const entry of fromStore) {
      views.push({
        group: entry.group, role: entry.role, stream: entry.stream, broker: entry.broker, source: 'event_store',
        pending: null, lag: null, exists: true, deadLetters: counts.find((c) => c.subscription === entry.group)?.total ?? 0,
      });
    }
  }
  return views;
}
