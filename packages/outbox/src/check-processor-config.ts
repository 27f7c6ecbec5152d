/**
 * Checks the `[outbox]` settings a processor relies on before it starts, so a bad value fails at
 * start-up naming its domain.toml key rather than misbehaving at the first failure.
 */
import type { OutboxConfig } from '@protean-ts/core';
import { checkRetryConfig } from './compute-backoff.js';
import { OutboxConfigError } from './outbox-config.error.js';

export function checkProcessorConfig(config: OutboxConfig): void {
  if (!Number.isSafeInteger(config.messages_per_tick) || config.messages_per_tick < 1) {
    throw new OutboxConfigError('messages_per_tick', `must be an integer of at least 1, got ${String(config.messages_per_tick)}`);
  }
  if (typeof config.tick_interval !== 'number' || !(config.tick_interval >= 0) || !Number.isFinite(config.tick_interval)) {
    throw new OutboxConfigError('tick_interval', `must be a number of seconds of at least 0, got ${String(config.tick_interval)}`);
  }
  const cleanup = config.cleanup;
  if (!Number.isSafeInteger(cleanup.cleanup_interval_ticks) || cleanup.cleanup_interval_ticks < 1) {
    throw new OutboxConfigError('cleanup.cleanup_interval_ticks', `must be an integer of at least 1, got ${String(cleanup.cleanup_interval_ticks)}`);
  }
  for (const key of ['published_retention_hours', 'abandoned_retention_hours'] as const) {
    if (typeof cleanup[key] !== 'number' || !(cleanup[key] >= 0)) {
      throw new OutboxConfigError(`cleanup.${key}`, `must be a number of hours of at least 0, got ${String(cleanup[key])}`);
    }
  }
  checkRetryConfig(config.retry);
}
