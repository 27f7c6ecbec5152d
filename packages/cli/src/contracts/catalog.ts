/**
 * The message catalog of a domain: each event and command with its contract (fields, version,
 * aggregate, stream category, published or internal) and who consumes it: command handlers,
 * event handlers, process managers, projectors with the projection they write, and CloudEvents
 * subscribers that build it from another system's CloudEvents.
 */
import { cloudEventHandlersOf, type Domain } from '@protean-ts/core';
import type { MessageContract } from './contracts-document.js';
import { domainContracts } from './domain-contracts.js';

export interface MessageConsumer {
  kind: 'commandHandler' | 'eventHandler' | 'processManager' | 'projector' | 'subscriber';
  name: string;
  methods: string[];
  /** Projectors: the projection they write. */
  projection?: string;
  /** CloudEvents subscribers: the CloudEvents types they build this event from (`@onCloudEvent`). */
  cloudEventTypes?: string[];
}

export interface CatalogEntry extends Omit<MessageContract, 'schema'> {
  consumers: MessageConsumer[];
}

export interface MessageCatalog {
  domain: string;
  events: CatalogEntry[];
  commands: CatalogEntry[];
}

export function messageCatalog(domain: Domain): MessageCatalog {
  const fromCloudEvents = cloudEventConsumers(domain);
  const entries = domainContracts(domain).messages.map(({ schema: _schema, ...contract }): CatalogEntry => ({
    ...contract,
    consumers: [...consumersOf(domain, contract.type), ...(fromCloudEvents.get(contract.type) ?? [])],
  }));
  return { domain: domain.name, events: entries.filter((e) => e.kind === 'event'), commands: entries.filter((e) => e.kind === 'command') };
}

function consumersOf(domain: Domain, type: string): MessageConsumer[] {
  return domain.handlersFor(type).map((binding): MessageConsumer => {
    const record = domain.recordOf(binding.cls);
    const name = record?.name ?? binding.cls.name;
    if (record?.kind === 'projector') {
      const projection = record.options.projectorFor ? domain.recordOf(record.options.projectorFor)?.name : undefined;
      return { kind: 'projector', name, methods: [...binding.methods], ...(projection ? { projection } : {}) };
    }
    return { kind: binding.record.kind, name, methods: [...binding.methods] };
  });
}

/** Per event type, the CloudEventSubscribers whose `@onCloudEvent` methods receive it. */
function cloudEventConsumers(domain: Domain): Map<string, MessageConsumer[]> {
  const typeOf = new Map(domain.recordsOf('event').map((record) => [record.cls as object, domain.registry.messageInfo(record.cls).type]));
  const byType = new Map<string, MessageConsumer[]>();
  for (const record of domain.recordsOf('subscriber')) {
    const byEvent = new Map<string, MessageConsumer>();
    for (const { type, event, method } of cloudEventHandlersOf(record.cls)) {
      const eventType = typeOf.get(event);
      if (!eventType) continue;
      const consumer = byEvent.get(eventType) ?? { kind: 'subscriber', name: record.name, methods: [], cloudEventTypes: [] };
      consumer.methods.push(method);
      consumer.cloudEventTypes!.push(type);
      byEvent.set(eventType, consumer);
    }
    for (const [eventType, consumer] of byEvent) byType.set(eventType, [...(byType.get(eventType) ?? []), consumer]);
  }
  return byType;
}
