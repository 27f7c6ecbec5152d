/** Event-store stream naming: `<domain>::<category>-<id>`, its category, and what is refused. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidStreamNameError } from '../../src/errors/invalid-stream-name.error.js';
import { ALL_STREAMS, categoryOf, isCategory, isEntityStream, streamName } from '../../src/ports/stream-names.js';

describe('stream names', () => {
  it('builds <domain>::<category>-<id> and finds the category back, with dashes in the id', () => {
    expect(streamName('shop', 'order', '42')).toBe('shop::order-42');
    const id = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
    expect(categoryOf(streamName('shop', 'order_line', id))).toBe('shop::order_line');
    expect(isCategory('shop::order')).toBe(true);
    expect(isCategory(ALL_STREAMS)).toBe(true);
    expect(isEntityStream('shop::order')).toBe(false);
  });

  it('refuses parts that would make the name ambiguous, naming the part', () => {
    expect(() => streamName('shop', 'order-line', '1')).toThrow(/category must be a non-empty name without "-"/);
    expect(() => streamName('my::shop', 'order', '1')).toThrow(/domain must be a non-empty name without "::"/);
    expect(() => streamName('shop', 'order', '')).toThrow(InvalidStreamNameError);
    expect(() => categoryOf('order-1')).toThrow(/build it with streamName\(\)/);
    expect(() => categoryOf('shop::order::line-1')).toThrow(InvalidStreamNameError);
  });

  const part = fc.stringMatching(/^[a-z_][a-z0-9_]{0,11}$/);
  const anyId = fc.string({ minLength: 1, maxLength: 40 });

  it('for any domain, category and id: the name is an entity stream whose category is <domain>::<category>', () => {
    for (const seed of [42, Math.floor(Math.random() * 2 ** 31)]) {
      fc.assert(
        fc.property(part, part, anyId, (domain, category, id) => {
          const name = streamName(domain, category, id);
          expect(isEntityStream(name)).toBe(true);
          expect(categoryOf(name)).toBe(`${domain}::${category}`);
          expect(isCategory(categoryOf(name))).toBe(true);
        }),
        { seed, numRuns: 2000 },
      );
    }
  });

  it('for any string: categoryOf either answers a category or raises InvalidStreamNameError, nothing else', () => {
    for (const seed of [7, Math.floor(Math.random() * 2 ** 31)]) {
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
        { seed, numRuns: 5000 },
      );
    }
  });
});
