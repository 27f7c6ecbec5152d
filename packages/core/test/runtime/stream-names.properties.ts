/**
 * Stream names as properties: any valid parts make an entity stream whose category is found back,
 * and any string is either a stream name or refused with InvalidStreamNameError. Run by
 * stream-names.unit.spec.ts (fast tier) and stream-names.property.load.spec.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidStreamNameError } from '../../src/errors/invalid-stream-name.error.js';
import { categoryOf, isCategory, isEntityStream, streamName } from '../../src/ports/stream-names.js';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';

const part = fc.stringMatching(/^[a-z_][a-z0-9_]{0,11}$/);
const anyId = fc.string({ minLength: 1, maxLength: 40 });

export function describeStreamNameProperties(tier: PropertyTier): void {
  describe('stream names (property)', () => {
    const built = propertyRun(tier, { seed: 42, fastRuns: 2_000, loadRuns: 20_000 });
    it(`for any domain, category and id: the name is an entity stream whose category is <domain>::<category> (seed ${built.seed})`, () => {
      fc.assert(
        fc.property(part, part, anyId, (domain, category, id) => {
          const name = streamName(domain, category, id);
          expect(isEntityStream(name)).toBe(true);
          expect(categoryOf(name)).toBe(`${domain}::${category}`);
          expect(isCategory(categoryOf(name))).toBe(true);
        }),
        built,
      );
    });

    const parsed = propertyRun(tier, { seed: 7, fastRuns: 5_000, loadRuns: 50_000 });
    it(`for any string: categoryOf either answers a category or raises InvalidStreamNameError, nothing else (seed ${parsed.seed})`, () => {
      fc.assert(
        // Built from the characters that matter, so names that nearly follow the pattern are common.
        fc.property(fc.string({ unit: fc.constantFrom(':', '-', 'a', 'b', ' ', '$'), maxLength: 16 }), (text) => {
          try {
            expect(isCategory(categoryOf(text))).toBe(true);
            expect(isEntityStream(text)).toBe(true);
          } catch (error) {
            if (!(error instanceof InvalidStreamNameError)) throw error;
            expect(isEntityStream(text)).toBe(false);
          }
        }),
        parsed,
      );
    });
  });
}
