/**
 * What test mode waits for: each managed database's outbox has nothing pending, processing or
 * failed, and each subscription's consumer group has nothing undelivered or unacked.
 */
import { laneStream, LIVE_LANE, partitionStreams, type Broker, type DatabaseProvider } from '@protean-ts/core';
import type { DrainProbe } from './drain-monitor.js';
import type { EventStoreSubscription } from '../subscriptions/event-store-subscription.js';
import type { Subscription } from '../subscriptions/subscription-status.js';

export function outboxProbe(name: string, provider: DatabaseProvider): DrainProbe {
  return {
    name: `outbox of database "${name}"`,
    async busy() {
      const counts = await provider.outbox.counts();
      const open = counts.pending + counts.processing + counts.failed;
      if (open === 0) return null;
      return `${counts.pending} pending, ${counts.processing} processing, ${counts.failed} failed`;
    },
  };
}

/** A partitioned subscription is drained when the group is drained on every partition, whichever process reads it. */
export function subscriptionProbe(subscription: Subscription, broker: Broker): DrainProbe {
  const { stream, group, partitions, lanes } = subscription.status();
  const streams = [LIVE_LANE, ...(lanes ?? [])].flatMap((lane) => partitionStreams(laneStream(stream, lane), partitions?.count ?? 1));
  return {
    name: `subscription ${subscription.name} (stream "${stream}"${streams.length > 1 ? `, ${streams.length} streams of its partitions and lanes` : ''})`,
    async busy() {
      const state = subscription.status();
      const healthy = state.state === 'running' || (state.partitions !== undefined && state.state === 'standby');
      if (!healthy) return `state ${state.state}${state.lastError ? `: ${state.lastError.split('\n')[0]}` : ''}`;
      const busy: string[] = [];
      for (const partition of streams) {
        const lagging = await broker.groupStatus(partition, group);
        if (lagging.pending === 0 && lagging.lag === 0) continue;
        busy.push(
          `${streams.length > 1 ? `${partition}: ` : ''}${lagging.pending} unacked, ${lagging.lag === null ? 'unknown number of' : lagging.lag} undelivered`,
        );
      }
      return busy.length ? busy.join('; ') : null;
    },
  };
}

/**
 * An event-store subscription is drained when the worker holding its lease read to the head of
 * the category and finished everything read; a worker standing by looks at the cursor the holder
 * saved (a holder that died leaves events after it: busy until a worker takes over).
 */
export function eventStoreProbe(subscription: EventStoreSubscription): DrainProbe {
  const { stream } = subscription.status();
  return {
    name: `event-store subscription ${subscription.name} (category "${stream}")`,
    async busy() {
      const state = subscription.status();
      if (state.state === 'standby') return subscription.unhandledAfterSavedCursor();
      if (state.state !== 'running') return `state ${state.state}${state.lastError ? `: ${state.lastError.split('\n')[0]}` : ''}`;
      return subscription.isCaughtUp ? subscription.eventsHeldBack() : `${state.inFlight} events in flight, or not read to the head yet`;
    },
  };
}
