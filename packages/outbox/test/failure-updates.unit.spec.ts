/**
 * planFailures bounds retries by attempts and by `outbox.retry.max_total_seconds` counted from the
 * row's creation: examples here, then the properties over many generated rows and settings
 * (failure-updates.properties.ts) at the fast tier's size.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '@protean-ts/core';
import { checkProcessorConfig } from '../src/check-processor-config.js';
import { planFailures } from '../src/failure-updates.js';
import { describeFailureUpdateProperties } from './failure-updates.properties.js';
import { plan, retry, storedRow } from './support/failure-plans.js';
import { outboxConfig } from './support/processor-fixtures.js';

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
});

describe('checkProcessorConfig: lock_seconds and retry.max_total_seconds', () => {
  it('accepts the bounds and the defaults', () => {
    for (const lock of [1, 30, 3600]) expect(() => checkProcessorConfig(outboxConfig({ lock_seconds: lock }))).not.toThrow();
    expect(() => checkProcessorConfig(defaultConfig().outbox)).not.toThrow();
  });
});

describeFailureUpdateProperties('fast');
