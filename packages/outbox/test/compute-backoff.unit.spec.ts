/** computeBackoff honours every `[outbox.retry]` key; bounds are checked over many samples. */
import { describe, expect, it } from 'vitest';
import { defaultConfig, type OutboxRetryConfig } from '@protean-ts/core';
import { computeBackoff, OutboxConfigError } from '../src/index.js';

const retry = (overrides: Partial<OutboxRetryConfig> = {}): OutboxRetryConfig => ({ ...defaultConfig().outbox.retry, ...overrides });

describe('computeBackoff', () => {
  it('grows by backoff_multiplier from base_delay_seconds and stops at max_backoff_seconds', () => {
    const config = retry({ jitter: false, base_delay_seconds: 1, backoff_multiplier: 2, max_backoff_seconds: 300 });
    expect([1, 2, 3, 4, 8, 9, 10, 50].map((n) => computeBackoff(n, config))).toEqual([1000, 2000, 4000, 8000, 128000, 256000, 300000, 300000]);
    expect(computeBackoff(4, retry({ jitter: false, base_delay_seconds: 0.5, backoff_multiplier: 3, max_backoff_seconds: 60 }))).toBe(13500);
  });

  it('a multiplier of 1 gives a constant delay; a base of 0 retries at once', () => {
    expect([1, 5, 20].map((n) => computeBackoff(n, retry({ jitter: false, backoff_multiplier: 1, base_delay_seconds: 2 })))).toEqual([2000, 2000, 2000]);
    expect(computeBackoff(3, retry({ base_delay_seconds: 0 }))).toBe(0);
  });

  it('jitter stays within ±jitter_factor of the delay, and uses the whole range', () => {
    const config = retry({ jitter: true, jitter_factor: 0.25, base_delay_seconds: 1, backoff_multiplier: 2, max_backoff_seconds: 300 });
    for (const attempt of [1, 3, 6]) {
      const delay = 1000 * 2 ** (attempt - 1);
      const samples = Array.from({ length: 10_000 }, () => computeBackoff(attempt, config));
      const [low, high] = [Math.min(...samples), Math.max(...samples)];
      expect(low).toBeGreaterThanOrEqual(delay * 0.75);
      expect(high).toBeLessThanOrEqual(delay * 1.25);
      // Not a constant in disguise: both ends of the band are reached.
      expect(low).toBeLessThan(delay * 0.78);
      expect(high).toBeGreaterThan(delay * 1.22);
    }
  });

  it('jitter never pushes a delay past max_backoff_seconds or below zero', () => {
    const config = retry({ jitter: true, jitter_factor: 1, base_delay_seconds: 10, backoff_multiplier: 2, max_backoff_seconds: 30 });
    const samples = Array.from({ length: 10_000 }, (_, i) => computeBackoff(1 + (i % 12), config));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThanOrEqual(30_000);
    expect(computeBackoff(1, config, () => 0)).toBe(0);
    expect(computeBackoff(12, config, () => 0.999999)).toBe(30_000);
  });

  it('jitter = false ignores jitter_factor, and jitter_factor = 0 means no jitter', () => {
    expect(computeBackoff(2, retry({ jitter: false, jitter_factor: 0.9 }), () => 0)).toBe(2000);
    expect(computeBackoff(2, retry({ jitter: true, jitter_factor: 0 }), () => 0)).toBe(2000);
    expect(computeBackoff(2, retry({ jitter: true, jitter_factor: 0.5 }), () => 0)).toBe(1000);
  });

  it('stays finite for absurd attempt counts', () => {
    expect(computeBackoff(100_000, retry({ jitter: false }))).toBe(300_000);
  });

  it('names the key and the fix when a setting cannot work', () => {
    expect(() => computeBackoff(1, retry({ backoff_multiplier: 0.5 }))).toThrow(OutboxConfigError);
    expect(() => computeBackoff(1, retry({ backoff_multiplier: 0.5 }))).toThrow(
      /outbox\.retry\.backoff_multiplier must be a number of at least 1, got 0\.5 \(fix it in domain\.toml\)/,
    );
    expect(() => computeBackoff(1, retry({ jitter_factor: 1.5 }))).toThrow(/retry\.jitter_factor must be a number between 0 and 1/);
    expect(() => computeBackoff(1, retry({ base_delay_seconds: -1 }))).toThrow(/retry\.base_delay_seconds/);
    expect(() => computeBackoff(1, retry({ max_backoff_seconds: 1, base_delay_seconds: 2 }))).toThrow(
      /retry\.max_backoff_seconds must be at least retry\.base_delay_seconds/,
    );
    expect(() => computeBackoff(1, retry({ max_attempts: 0 }))).toThrow(/retry\.max_attempts/);
    expect(() => computeBackoff(0, retry())).toThrow(RangeError);
  });
});
