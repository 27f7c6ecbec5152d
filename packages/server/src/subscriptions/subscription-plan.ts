/**
 * Which subscriptions a domain needs, read from its registry and configuration: every command
 * handler on `<category>:command`, every event handler on its category when
 * `event_processing = "async"` (when sync, the unit of work already runs them after commit) —
 * from broker streams or, for subscription type `event_store`, from the event store — and every
 * `@domain.subscriber` on its own stream and broker. A process manager, when async, gets one
 * stream subscription per category it follows (its timeouts travel on those categories too),
 * all under its subscriptionName: per-key order and the inbox as for any handler.
 * A projector is planned like an event handler, once per stream category it follows
 * (projector-subscriptions.ts).
 */
import { lanesRead, laneStream, LIVE_LANE, partitionStreams, type ClassRef, type Domain } from '@protean-ts/core';
import { planProjectorSubscriptions } from './projector-subscriptions.js';

export interface PlannedSubscription {
  /** The consumer group, unique per stream: the handler's subscriptionName or the subscriber's class name. */
  group: string;
  role: 'commandHandler' | 'eventHandler' | 'subscriber' | 'processManager' | 'projector';
  cls: ClassRef;
  stream: string;
  /** The `[brokers.<name>]` key read from (unused by event-store subscriptions). */
  broker: string;
  /** Broker streams, or the event store's category (event handlers of subscription type `event_store`). */
  source: 'stream' | 'event_store';
  /** For a projector: the projection it writes (its subscriptions wait while that projection is rebuilt). */
  projection?: ClassRef;
}

export function planSubscriptions(domain: Domain): PlannedSubscription[] {
  const { config, registry } = domain;
  const plan: PlannedSubscription[] = [];
  const handlerBroker = config.outbox.broker;
  for (const record of registry.recordsOf('commandHandler')) {
    const category = requireCategory(domain, record.cls);
    plan.push({
      group: record.options.subscriptionName,
      role: 'commandHandler',
      cls: record.cls,
      stream: `${category}:command`,
      broker: handlerBroker,
      source: 'stream',
    });
  }
  if (config.event_processing === 'async') {
    for (const record of registry.recordsOf('eventHandler')) {
      const category = requireCategory(domain, record.cls);
      const source = record.options.subscriptionType ?? config.server.default_subscription_type;
      if (source === 'event_store') requireEventSourced(domain, record.cls, category);
      plan.push({ group: record.options.subscriptionName, role: 'eventHandler', cls: record.cls, stream: category, broker: handlerBroker, source });
    }
    for (const record of registry.recordsOf('processManager')) {
      if (!domain.outboxEnabled) {
        throw new Error(
          `${record.name} is a process manager: its events, the commands it sends and its timeouts travel through the outbox, which is off (enable_outbox = false); ` +
            'turn the outbox on (and keep server.default_subscription_type = "stream")',
        );
      }
      for (const category of registry.processManagerCategories(record.cls)) {
        plan.push({
          group: record.options.subscriptionName,
          role: 'processManager',
          cls: record.cls,
          stream: category,
          broker: handlerBroker,
          source: 'stream',
        });
      }
    }
    plan.push(...planProjectorSubscriptions(domain, handlerBroker));
  }
  for (const record of registry.recordsOf('subscriber')) {
    plan.push({ group: record.name, role: 'subscriber', cls: record.cls, stream: record.options.stream, broker: record.options.broker, source: 'stream' });
  }
  checkUniqueGroups(plan);
  return plan;
}

function requireCategory(domain: Domain, handler: ClassRef): string {
  const category = domain.registry.handlerStreamCategory(handler);
  if (!category) throw new Error(`${handler.name} has no stream category to subscribe to; give it partOf: <Aggregate> or streamCategory`);
  return category;
}

/** With `default_subscription_type = "event_store"`, a handler of a category nothing writes to the store would never be called. */
export function requireEventSourced(domain: Domain, handler: ClassRef, category: string): void {
  if (domain.registry.eventSourcedAggregateOf(category)) return;
  throw new Error(
    `${handler.name} would read "${category}" from the event store (server.default_subscription_type = "event_store"), but no event-sourced aggregate writes that category there, so it would never be called; ` +
      "make the aggregate eventSourced, or give the handler subscriptionType: 'stream' (its events then come through the outbox: enable_outbox = true)",
  );
}

// Two handlers in one group would split the stream's messages between them, each seeing half.
function checkUniqueGroups(plan: readonly PlannedSubscription[]): void {
  const seen = new Map<string, PlannedSubscription>();
  for (const entry of plan) {
    // Event-store subscriptions keep their lease and cursor by name alone: a name is theirs store-wide.
    const key = entry.source === 'event_store' ? `event_store\u0000${entry.group}` : `${entry.broker}\u0000${entry.stream}\u0000${entry.group}`;
    const other = seen.get(key);
    if (other) {
      throw new Error(
        `${other.cls.name} and ${entry.cls.name} both subscribe ${entry.source === 'event_store' ? 'to the event store' : `to stream "${entry.stream}"`} as group "${entry.group}"; ` +
          'give one of them its own subscriptionName',
      );
    }
    seen.set(key, entry);
  }
}

/**
 * How many partitions the subscription's stream has: `outbox.partitions` for streams the outbox
 * feeds (every stream subscription on `outbox.broker`), 1 for the event store and other brokers.
 */
export function partitionCount(domain: Domain, entry: Pick<PlannedSubscription, 'source' | 'broker'>): number {
  const { outbox } = domain.config;
  return entry.source === 'stream' && entry.broker === outbox.broker ? outbox.partitions : 1;
}

/**
 * The lanes a planned subscription reads, live first: every lane of `[outbox.lanes]` for a
 * handler's stream the outbox feeds, only live for the event store, a subscriber or another broker.
 */
export function plannedLanes(domain: Domain, entry: Pick<PlannedSubscription, 'source' | 'broker' | 'role'>): string[] {
  const { outbox } = domain.config;
  return entry.source === 'stream' && entry.role !== 'subscriber' && entry.broker === outbox.broker ? lanesRead(outbox.lanes) : [LIVE_LANE];
}

/** The broker streams a planned subscription reads: its stream, its other partitions, and those of its other lanes. */
export function plannedStreams(domain: Domain, entry: PlannedSubscription): string[] {
  const partitions = partitionCount(domain, entry);
  return plannedLanes(domain, entry).flatMap((lane) => partitionStreams(laneStream(entry.stream, lane), partitions));
}
