/**
 * Today's contracts of a loaded domain: each registered event and command with its field
 * contracts and JSON Schema. Only the model is read; nothing is connected.
 */
import type { Domain } from '@protean-ts/core';
import { CONTRACTS_FORMAT, type ContractsDocument, type MessageContract } from './contracts-document.js';
import { fieldContractsOf } from './field-contract.js';
import { messageJsonSchema } from './json-schema.js';

export function domainContracts(domain: Domain): ContractsDocument {
  const records = [...domain.recordsOf('event'), ...domain.recordsOf('command')];
  const messages = records.map((record): MessageContract => {
    const info = domain.registry.messageInfo(record.cls);
    const fields = fieldContractsOf(record.cls);
    const aggregate = info.partOf ? domain.recordOf(info.partOf)?.name : undefined;
    return {
      kind: record.kind,
      name: record.name,
      fqn: info.fqn,
      type: info.type,
      version: info.version,
      published: info.published,
      aggregate: aggregate ?? null,
      streamCategory: info.streamCategory ?? null,
      fields,
      upcasters: record.kind === 'event' ? domain.upcasters.stepsOf(record.cls).sort((a, b) => a.from - b.from) : [],
      schema: messageJsonSchema({ type: info.type, fields }),
    };
  });
  messages.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return { format: CONTRACTS_FORMAT, domain: domain.name, messages };
}
