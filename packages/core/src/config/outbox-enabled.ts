/**
 * Whether events go through the transactional outbox: `enable_outbox`, on by default. Stream
 * subscriptions (the only kind until event-store subscriptions land) read from brokers the outbox feeds;
 * turning it off suits a process that only persists, or handles events in-process (sync).
 */
import type { DomainConfig } from './config-types.js';

export function outboxEnabled(config: Pick<DomainConfig, 'enable_outbox'>): boolean {
  return config.enable_outbox === true;
}
