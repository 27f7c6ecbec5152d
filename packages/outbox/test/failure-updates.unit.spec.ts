/**
 * planFailures bounds retries by attempts and by `outbox.retry.max_total_seconds` counted from the
 * row's creation: examples first, then properties over many generated rows and settings (a fixed
 * seed, and a fresh one each run that fast-check prints when a case fails).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultConfig, type OutboxRetryConfig, type OutboxRow } from '@protean-ts/core';
import { RowFactory } from '@protean-ts/core/testing';
import { OutboxConfigError } from '../src/index.js';
import { checkProcessorConfig } from '../src/check-processor-config.js';
import { planFailures } from '../src/failure-updates.js';
import { outboxConfig } from './support/processor-fixtures.js';

const FIXED_SEED = 20261124;
const randomSeed = Math.floor(Math.random() * 2 ** 31);
const seeds = [FIXED_SEED, randomSeed];

const retry = (overrides: Partial<OutboxRetryConfig> = {}): OutboxRetryConfig => ({ ...defaultConfig().outbox.retry, jitter: false, ...overrides });
const factory = new RowFactory();

function storedRow(createdAt: number, retryCount: number, maxRetries: number): OutboxRow {
  return {
    ...factory.row('a', 1),
    id: '7',
    sequence: 1,
    status: 'processing',
    retryCount,
    maxRetries,
    nextRetryAt: null,
    lastError: null,
    lockedBy: 'w',
    lockedUntil: new Date(createdAt + 60_000),
    createdAt: new Date(createdAt),
    publishedAt: null,
    priority: 0,
    correlationId: null,
    causationId: null,
  };
}

const plan = (row: OutboxRow, config: OutboxRetryConfig, now: number) =>
  planFailures([{ row, error: new Error('WRONGTYPE Operation against a key holding the wrong kind of value') }], config, now, () => 0.5)[0]!;

describe('planFailures: outbox.retry.max_total_seconds', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  it('regression (retries bounded by attempts only): a row failing past max_total_seconds is abandoned with that reason, attempts left or not', () => {
    const planned = plan(storedRow(t0, 1, 100), retry({ max_total_seconds: 60 }), t0 + 61_000);
    expect(planned.reason).toBe('max_total_seconds');
    expect(planned.update.abandon).toBe(true);
    expect(planned.update.error).toBe(
      'abandoned 61 s after it was written, after 2 attempts (outbox.retry.max_total_seconds = 60); last error: Error: WRONGTYPE Operation against a key holding the wrong kind of value',
    );
  });

  it('moves a retry that would fall past the bound to the bound itself, so the window is used but never exceeded', () => {
    const config = retry({ max_total_seconds: 60, base_delay_seconds: 50, max_backoff_seconds: 300 });
    const planned = plan(storedRow(t0, 0, 100), config, t0 + 30_000);
    expect(planned.reason).toBeNull();
    expect(planned.update.nextRetryAt.getTime()).toBe(t0 + 60_000);
    // The attempt at the bound that fails again is the last one.
    expect(plan(storedRow(t0, 1, 100), config, t0 + 60_000).reason).toBe('max_total_seconds');
  });

  it('0 means no bound: only max_attempts ends the retries', () => {
    const planned = plan(storedRow(t0, 3, 100), retry({ max_total_seconds: 0 }), t0 + 365 * 86_400_000);
    expect(planned.reason).toBeNull();
    expect(plan(storedRow(t0, 99, 100), retry({ max_total_seconds: 0 }), t0 + 1).reason).toBe('max_attempts');
  });

  it('states the attempts bound in last_error when that is what ended it', () => {
    const planned = plan(storedRow(t0, 4, 5), retry(), t0 + 10_000);
    expect(planned.update.error).toMatch(/^abandoned after 5 attempts \(outbox\.retry\.max_attempts = 5\); last error: Error: WRONGTYPE/);
  });

  it('the default bound is one hour and does not cut short the default five attempts', () => {
    expect(defaultConfig().outbox.retry.max_total_seconds).toBe(3600);
    const config = defaultConfig().outbox.retry;
    let now = t0;
    let attempt = 0;
    for (;;) {
      const planned = planFailures([{ row: storedRow(t0, attempt, config.max_attempts), error: new Error('x') }], config, now, () => 0.999)[0]!;
      attempt += 1;
      if (planned.reason) {
        expect(planned.reason).toBe('max_attempts');
        break;
      }
      now = planned.update.nextRetryAt.getTime();
    }
    expect(attempt).toBe(5);
  });

  for (const seed of seeds) {
    it(`properties hold for any row, age and settings (seed ${seed})`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 50 }),
          fc.integer({ min: 0, max: 49 }),
          fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 2147483, noNaN: true })),
          fc.double({ min: 0, max: 3, noNaN: true }),
          fc.double({ min: 0, max: 100, noNaN: true }),
          fc.double({ min: 1, max: 10, noNaN: true }),
          fc.boolean(),
          (maxRetries, used, bound, ageFactor, base, multiplier, jitter) => {
            const retryCount = Math.min(used, maxRetries - 1);
            const config = retry({
              max_total_seconds: bound,
              base_delay_seconds: base,
              max_backoff_seconds: base * 10,
              backoff_multiplier: multiplier,
              jitter,
            });
            const age = Math.round((bound || 1000) * 1000 * ageFactor);
            const now = t0 + age;
            const planned = plan(storedRow(t0, retryCount, maxRetries), config, now);
            const outOfAttempts = retryCount + 1 >= maxRetries;
            const outOfTime = bound > 0 && now >= t0 + bound * 1000;
            expect(planned.update.abandon).toBe(outOfAttempts || outOfTime);
            expect(planned.reason).toBe(outOfAttempts ? 'max_attempts' : outOfTime ? 'max_total_seconds' : null);
            expect(planned.update.error).toContain('WRONGTYPE');
            if (planned.reason) expect(planned.update.error).toContain(`outbox.retry.${planned.reason}`);
            const next = planned.update.nextRetryAt.getTime();
            expect(Number.isFinite(next)).toBe(true);
            if (!planned.update.abandon) {
              expect(next).toBeGreaterThanOrEqual(now);
              if (bound > 0) expect(next).toBeLessThanOrEqual(t0 + bound * 1000);
            }
          },
        ),
        { seed, numRuns: 5000 },
      );
    });
  }
});

describe('checkProcessorConfig: lock_seconds and retry.max_total_seconds', () => {
  it('accepts the bounds and the defaults', () => {
    for (const lock of [1, 30, 3600]) expect(() => checkProcessorConfig(outboxConfig({ lock_seconds: lock }))).not.toThrow();
    expect(() => checkProcessorConfig(defaultConfig().outbox)).not.toThrow();
  });

  for (const seed of seeds) {
    it(`refuses any other value with an OutboxConfigError naming the key (seed ${seed})`, () => {
      const anyValue = fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null), fc.constant(undefined), fc.boolean());
      fc.assert(
        fc.property(anyValue, anyValue, (lock, total) => {
          const config = outboxConfig({ lock_seconds: lock as number, retry: { max_total_seconds: total as number } });
          const lockOk = typeof lock === 'number' && lock >= 1 && lock <= 3600;
          const totalOk = typeof total === 'number' && total >= 0 && total <= 2147483;
          let thrown: unknown = null;
          try {
            checkProcessorConfig(config);
          } catch (error) {
            thrown = error;
          }
          if (lockOk && totalOk) {
            expect(thrown).toBeNull();
            return;
          }
          expect(thrown).toBeInstanceOf(OutboxConfigError);
          const key = (thrown as OutboxConfigError).key;
          expect(key).toBe(lockOk ? 'retry.max_total_seconds' : 'lock_seconds');
          expect((thrown as Error).message).toContain('fix it in domain.toml');
        }),
        { seed, numRuns: 3000 },
      );
    });
  }
});
