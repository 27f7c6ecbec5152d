/**
 * Whether events go through the transactional outbox. Stream subscriptions read from a broker,
 * and the outbox is what feeds that broker reliably, so `stream` implies the outbox.
 */
import type { DomainConfig } from './config-types.js';

export function outboxEnabled(config: Pick<DomainConfig, 'enable_outbox' | 'server'>): boolean {
  return config.enable_outbox === true || config.server.default_subscription_type === 'stream';
}
