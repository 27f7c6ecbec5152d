/**
 * How long a message waits before its next attempt, from the `[outbox.retry]` settings:
 *
 *   delay  = min(base_delay_seconds × backoff_multiplier^(attempt − 1), max_backoff_seconds)
 *   jitter = delay × jitter_factor × (2·random − 1)          (only when `jitter` is true)
 *   result = clamp(delay + jitter, 0, max_backoff_seconds)   in milliseconds
 *
 * Pure, with `random` injectable, so tests can check the bounds over many samples.
 */
import type { OutboxRetryConfig } from '@protean-ts/core';
import { OutboxConfigError } from './outbox-config.error.js';

/** `attempt` counts from 1 (the first failure). `random` returns values in [0, 1). */
export function computeBackoff(attempt: number, retry: OutboxRetryConfig, random: () => number = Math.random): number {
  checkRetryConfig(retry);
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new RangeError(`computeBackoff: attempt must be an integer of at least 1, got ${String(attempt)}`);
  }
  const capMs = retry.max_backoff_seconds * 1000;
  // Past the cap the exponent no longer matters; stopping early avoids Infinity for huge attempts.
  const exponential = retry.base_delay_seconds * 1000 * Math.pow(retry.backoff_multiplier, attempt - 1);
  const delay = Math.min(Number.isFinite(exponential) ? exponential : capMs, capMs);
  if (!retry.jitter || retry.jitter_factor === 0) return delay;
  const spread = delay * retry.jitter_factor * (2 * random() - 1);
  return Math.min(Math.max(delay + spread, 0), capMs);
}

// The config schema's bound for seconds: the longest a Node timer can wait (about 24.8 days).
const MAX_TOTAL_SECONDS = 2147483;

/** Throws `OutboxConfigError` naming the first `outbox.retry` key that cannot work. */
export function checkRetryConfig(retry: OutboxRetryConfig): void {
  const nonNegative = (key: keyof OutboxRetryConfig, value: unknown) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new OutboxConfigError(`retry.${String(key)}`, `must be a number of at least 0, got ${String(value)}`);
    }
  };
  if (!Number.isSafeInteger(retry.max_attempts) || retry.max_attempts < 1) {
    throw new OutboxConfigError('retry.max_attempts', `must be an integer of at least 1, got ${String(retry.max_attempts)}`);
  }
  nonNegative('base_delay_seconds', retry.base_delay_seconds);
  nonNegative('max_backoff_seconds', retry.max_backoff_seconds);
  if (retry.max_backoff_seconds < retry.base_delay_seconds) {
    throw new OutboxConfigError(
      'retry.max_backoff_seconds',
      `must be at least retry.base_delay_seconds (${retry.base_delay_seconds}), got ${retry.max_backoff_seconds}`,
    );
  }
  if (typeof retry.backoff_multiplier !== 'number' || !(retry.backoff_multiplier >= 1)) {
    throw new OutboxConfigError('retry.backoff_multiplier', `must be a number of at least 1, got ${String(retry.backoff_multiplier)}`);
  }
  if (typeof retry.jitter !== 'boolean') {
    throw new OutboxConfigError('retry.jitter', `must be true or false, got ${String(retry.jitter)}`);
  }
  if (typeof retry.jitter_factor !== 'number' || !(retry.jitter_factor >= 0 && retry.jitter_factor <= 1)) {
    throw new OutboxConfigError('retry.jitter_factor', `must be a number between 0 and 1, got ${String(retry.jitter_factor)}`);
  }
  if (typeof retry.max_total_seconds !== 'number' || !(retry.max_total_seconds >= 0 && retry.max_total_seconds <= MAX_TOTAL_SECONDS)) {
    throw new OutboxConfigError(
      'retry.max_total_seconds',
      `must be a number of seconds between 0 (no bound) and ${MAX_TOTAL_SECONDS}, got ${String(retry.max_total_seconds)}`,
    );
  }
}
