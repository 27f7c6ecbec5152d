/**
 * Generated values of every field kind through PostgreSQL: whatever a field accepts is stored and
 * read back exactly. Run by exact-values.int.spec.ts (a fixed seed, the fast tier) and
 * exact-values.property.load.spec.ts (a random seed, more runs; FC_RUNS, FC_SEED).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@protean-ts/core';
import { POSTGRES, propertyRun, servicesUp, type PropertyTier } from '@protean-ts/conformance';
import { canonical, Measure, measureStore } from './support/exact-measure.js';

const up = await servicesUp(POSTGRES);

export function describeExactValueProperties(tier: PropertyTier): void {
  describe.skipIf(!up)('PostgreSQL stores generated values exactly (property)', () => {
    const { roundTrip } = measureStore();
    const run = propertyRun(tier, { seed: 20261124, fastRuns: 150, loadRuns: 1_500 });

    it(
      `round-trips generated values exactly (seed ${run.seed})`,
      async () => {
        const numberLike = fc.oneof(
          fc.double(),
          fc.maxSafeInteger(),
          fc.integer(),
          fc.double().map(String),
          fc.stringMatching(/^-?\d{1,12}(\.\d{0,6})?$/),
          fc.constantFrom(2 ** 53, 1e21, 5e-324, -0, Number.MAX_VALUE, '1e400', '9007199254740993'),
        );
        const props = fc.record(
          {
            count: numberLike,
            ratio: numberLike,
            amount: numberLike,
            free: numberLike,
            whole: numberLike,
            note: fc.string({ unit: 'binary', maxLength: 20 }),
            at: fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
            day: fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
            ratios: fc.array(numberLike, { maxLength: 3 }),
            extra: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.double(), fc.string({ unit: 'binary', maxLength: 6 }), fc.boolean()), { maxKeys: 3 }),
            readings: fc.array(fc.record({ count: numberLike, ratio: numberLike, amount: numberLike }, { requiredKeys: [] }), { maxLength: 2 }),
          },
          { requiredKeys: [] },
        );
        let stored = 0;
        const property = fc.asyncProperty(props, async (input) => {
          let measure: Measure;
          try {
            measure = Measure.create(input as never);
          } catch (error) {
            if (error instanceof ValidationError) return;
            throw error;
          }
          const loaded = await roundTrip(measure);
          expect(canonical(loaded)).toBe(canonical(measure));
          stored += 1;
        });
        await fc.assert(property, run);
        // The generators are meant to produce storable values, not only refusals: about one case in
        // eight is stored; one in fifteen is the bound (it was more than 20 of 300 runs).
        expect(stored).toBeGreaterThan(run.numRuns / 15);
      },
      Math.max(30_000, run.numRuns * 100),
    );
  });
}
