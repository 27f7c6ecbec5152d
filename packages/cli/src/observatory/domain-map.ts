/**
 * The observatory's map of the domain: every element the registry holds, grouped by kind (as
 * `protean-ts info` lists them), and for each subscription the stream it reads and the message
 * types its handler answers, so a reader sees which handler listens to which stream.
 */
import type { Domain } from '@protean-ts/core';
import { planSubscriptions } from '@protean-ts/server/operations';
import { summarizeDomain, type DomainSummary } from '../commands/info.js';

export interface MapSubscription {
  /** The consumer group (subscription name). */
  group: string;
  handler: string;
  role: string;
  stream: string;
  broker: string;
  source: 'stream' | 'event_store';
  /** Message types the handler has methods for (`Shop.OrderPlaced`…). */
  handles: string[];
}

export interface DomainMap extends DomainSummary {
  subscriptions: MapSubscription[];
}

export function domainMap(domain: Domain, module: string): DomainMap {
  const summary = summarizeDomain(domain, module, domain.runtime.isReady ? domain.config.event_store.database : undefined);
  const subscriptions = planSubscriptions(domain).map((entry) => ({
    group: entry.group,
    handler: domain.registry.requireRecord(entry.cls).name,
    role: entry.role,
    stream: entry.stream,
    broker: entry.broker,
    source: entry.source,
    handles: typesOnStream(domain, [...domain.registry.handlerMethodsOf(entry.cls).keys()], entry.stream),
  }));
  return { ...summary, subscriptions };
}

/**
 * The handler's types that travel on `stream`: a process manager reading several streams answers
 * each stream's own events there. Types whose category is unknown stay; when none match, all do.
 */
function typesOnStream(domain: Domain, types: string[], stream: string): string[] {
  const onStream = types.filter((type) => {
    const cls = domain.registry.messageClassFor(type);
    const category = cls ? domain.registry.messageInfo(cls).streamCategory : undefined;
    return category === undefined || stream === category || stream === `${category}:command`;
  });
  return onStream.length ? onStream : types;
}
