/**
 * Checks the `[outbox]` settings a processor relies on before it starts, so a bad value fails at
 * start-up naming its domain.toml key rather than misbehaving at the first failure.
 */
import type { OutboxConfig } from '@protean-ts/core';
import { checkRetryConfig } from './compute-backoff.js';
import { OutboxConfigError } from './outbox-config.error.js';

// The same bounds as the config schema: below a second the heartbeat (a third of the lock) would
// write to the database several times a second per processor; above an hour a dead processor's
// rows would wait that long to be taken over.
export const MIN_LOCK_SECONDS = 1;
export const MAX_LOCK_SECONDS = 3600;

export function checkProcessorConfig(config: OutboxConfig): void {
  if (!Number.isSafeInteger(config.messages_per_tick) || config.messages_per_tick < 1) {
    throw new OutboxConfigError('messages_per_tick', `must be an integer of at least 1, got ${String(config.messages_per_tick)}`);
  }
  if (typeof config.tick_interval !== 'number' || !(config.tick_interval >= 0) || !Number.isFinite(config.tick_interval)) {
    throw new OutboxConfigError('tick_interval', `must be a number of seconds of at least 0, got ${String(config.tick_interval)}`);
  }
  if (typeof config.lock_seconds !== 'number' || !(config.lock_seconds >= MIN_LOCK_SECONDS && config.lock_seconds <= MAX_LOCK_SECONDS)) {
    throw new OutboxConfigError(
      'lock_seconds',
      `must be a number of seconds between ${MIN_LOCK_SECONDS} and ${MAX_LOCK_SECONDS}, got ${String(config.lock_seconds)}`,
    );
  }
  // Absent in a config object built by hand before back-pressure existed: then it is off.
  const maxLag = config.max_consumer_lag ?? 0;
  if (!Number.isSafeInteger(maxLag) || maxLag < 0) {
    throw new OutboxConfigError('max_consumer_lag', `must be an integer of at least 0 (0 turns back-pressure off), got ${String(maxLag)}`);
  }
  const checkEvery = config.lag_check_interval ?? 1;
  if (typeof checkEvery !== 'number' || !(checkEvery >= 0.01 && checkEvery <= 3600)) {
    throw new OutboxConfigError('lag_check_interval', `must be a number of seconds between 0.01 and 3600, got ${String(checkEvery)}`);
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
