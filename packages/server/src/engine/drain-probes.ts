/**
 * What test mode waits for: each managed database's outbox has nothing pending, processing or
 * failed, and each subscription's consumer group has nothing undelivered or unacked.
 */
import type { Broker, DatabaseProvider } from '@protean-ts/core';
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

export function subscriptionProbe(subscription: Subscription, broker: Broker): DrainProbe {
  const { stream, group } = subscription.status();
  return {
    name: `subscription ${subscription.name} (stream "${stream}")`,
    async busy() {
      const state = subscription.status();
      if (state.state !== 'running') return `state ${state.state}${state.lastError ? `: ${state.lastError.split('\n')[0]}` : ''}`;
      const lagging = await broker.groupStatus(stream, group);
      if (lagging.pending === 0 && lagging.lag === 0) return null;
      return `${lagging.pending} unacked, ${lagging.lag === null ? 'unknown number of' : lagging.lag} undelivered`;
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
      return subscription.isCaughtUp ? null : `${state.inFlight} events in flight, or not read to the head yet`;
    },
  };
}
