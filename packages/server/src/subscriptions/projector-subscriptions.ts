/**
 * The subscriptions of projectors: one per (projector, stream category), named by the registry
 * (`projectorSubscriptions`: the projector's name for one category, `<Projector>-<category>` for
 * several). A projector reads the event store when it says `subscriptionType: 'event_store'`, or
 * by default when `server.default_subscription_type = "event_store"`.
 */
import type { Domain } from '@protean-ts/core';
import { requireEventSourced, type PlannedSubscription } from './subscription-plan.js';

export function planProjectorSubscriptions(domain: Domain, broker: string): PlannedSubscription[] {
  const { config, registry } = domain;
  return registry.recordsOf('projector').flatMap((record) => {
    const source = record.options.subscriptionType ?? config.server.default_subscription_type;
    return registry.projectorSubscriptions(record.cls).map(({ name, category }): PlannedSubscription => {
      if (source === 'event_store') requireEventSourced(domain, record.cls, category);
      return { group: name, role: 'projector', cls: record.cls, stream: category, broker, source, projection: record.options.projectorFor };
    });
  });
}
