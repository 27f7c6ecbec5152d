/**
 * The message catalog of a domain: each event and command with its contract (fields, version,
 * aggregate, stream category, published or internal) and who consumes it: command handlers,
 * event handlers, process managers, and projectors with the projection they write.
 */
import type { Domain } from '@protean-ts/core';
import type { MessageContract } from './contracts-document.js';
import { domainContracts } from './domain-contracts.js';

export interface MessageConsumer {
  kind: 'commandHandler' | 'eventHandler' | 'processManager' | 'projector';
  name: string;
  methods: string[];
  /** Projectors: the projection they write. */
  projection?: string;
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
  const entries = domainContracts(domain).messages.map(({ schema: _schema, ...contract }): CatalogEntry => ({
    ...contract,
    consumers: consumersOf(domain, contract.type),
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
