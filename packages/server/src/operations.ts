/**
 * @protean-ts/server/operations: what an operator's tools read about a running system without
 * starting an Engine (the subscription plan, status, drains, dead-letter naming). Apart from the
 * package's main entry, so a `protean-ts status` or `dlq list` does not load the metrics SDK the
 * Engine's endpoints use.
 */
export { partitionCount, plannedStreams, planSubscriptions, type PlannedSubscription } from './subscriptions/subscription-plan.js';
export { errorText } from './subscriptions/consumer-loop.js';
export { eventStoreInboxName } from './subscriptions/event-store-subscription.js';
export { collectStatus, managedDatabases, eventStoreOf, problem, DEFAULT_MAX_BEHIND, type CollectStatusOptions } from './status/collect-status.js';
export type {
  SystemStatus,
  OutboxReport,
  SubscriptionBacklog,
  StreamSubscriptionBacklog,
  EventStoreSubscriptionBacklog,
  RelayPressureReport,
} from './status/system-status.js';
export { DrainWatch, type DrainProgress, type OutboxDrain, type PartitionDrain, type SubscriptionDrain } from './status/drain-watch.js';
export { eventsBehind, type EventsBehind } from './status/events-behind.js';
