/**
 * Which subscriptions a domain needs, read from its registry and configuration: every command
 * handler on `<category>:command`, every event handler on its category when
 * `event_processing = "async"` (when sync, the unit of work already runs them after commit),
 * and every `@domain.subscriber` on its own stream and broker.
 */
import type { ClassRef, Domain } from '@protean-ts/core';

export interface PlannedSubscription {
  /** The consumer group, unique per stream: the handler's subscriptionName or the subscriber's class name. */
  group: string;
  role: 'commandHandler' | 'eventHandler' | 'subscriber';
  cls: ClassRef;
  stream: string;
  /** The `[brokers.<name>]` key read from. */
  broker: string;
}

export function planSubscriptions(domain: Domain): PlannedSubscription[] {
  const { config, registry } = domain;
  const plan: PlannedSubscription[] = [];
  const handlerBroker = config.outbox.broker;
  for (const record of registry.recordsOf('commandHandler')) {
    const category = requireCategory(domain, record.cls);
    plan.push({ group: record.options.subscriptionName, role: 'commandHandler', cls: record.cls, stream: `${category}:command`, broker: handlerBroker });
  }
  if (config.event_processing === 'async') {
    for (const record of registry.recordsOf('eventHandler')) {
      const category = requireCategory(domain, record.cls);
      plan.push({ group: record.options.subscriptionName, role: 'eventHandler', cls: record.cls, stream: category, broker: handlerBroker });
    }
  }
  for (const record of registry.recordsOf('subscriber')) {
    plan.push({ group: record.name, role: 'subscriber', cls: record.cls, stream: record.options.stream, broker: record.options.broker });
  }
  checkUniqueGroups(plan);
  return plan;
}

function requireCategory(domain: Domain, handler: ClassRef): string {
  const category = domain.registry.handlerStreamCategory(handler);
  if (!category) throw new Error(`${handler.name} has no stream category to subscribe to; give it partOf: <Aggregate> or streamCategory`);
  return category;
}

// Two handlers in one group would split the stream's messages between them, each seeing half.
function checkUniqueGroups(plan: readonly PlannedSubscription[]): void {
  const seen = new Map<string, PlannedSubscription>();
  for (const entry of plan) {
    const key = `${entry.broker}\u0000${entry.stream}\u0000${entry.group}`;
    const other = seen.get(key);
    if (other) {
      throw new Error(
        `${other.cls.name} and ${entry.cls.name} both subscribe to stream "${entry.stream}" as group "${entry.group}"; `
          + 'give one of them its own subscriptionName',
      );
    }
    seen.set(key, entry);
  }
}
