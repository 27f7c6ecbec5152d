/**
 * planFailures and checkProcessorConfig as properties: for any row, age and retry settings the
 * verdict respects both bounds, and any lock_seconds or max_total_seconds out of range is refused
 * by name. Run by failure-updates.unit.spec.ts (a fixed seed, the fast tier) and
 * failure-updates.property.load.spec.ts (a random seed, more runs; FC_RUNS, FC_SEED).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';
import { OutboxConfigError } from '../src/index.js';
import { checkProcessorConfig } from '../src/check-processor-config.js';
import { plan, retry, storedRow } from './support/failure-plans.js';
import { outboxConfig } from './support/processor-fixtures.js';

export function describeFailureUpdateProperties(tier: PropertyTier): void {
  describe('planFailures: outbox.retry.max_total_seconds (property)', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const run = propertyRun(tier, { seed: 20261124, fastRuns: 5_000, loadRuns: 50_000 });
    it(`properties hold for any row, age and settings (seed ${run.seed})`, () => {
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
        run,
      );
    });
  });

  describe('checkProcessorConfig: lock_seconds and retry.max_total_seconds (property)', () => {
    const run = propertyRun(tier, { seed: 20261124, fastRuns: 3_000, loadRuns: 30_000 });
    it(`refuses any other value with an OutboxConfigError naming the key (seed ${run.seed})`, () => {
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
        run,
      );
    });
  });
}
