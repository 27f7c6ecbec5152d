/** Event-store stream naming: `<domain>::<category>-<id>`, its category, and what is refused; then the properties at the fast tier's size. */
import { describe, expect, it } from 'vitest';
import { InvalidStreamNameError } from '../../src/errors/invalid-stream-name.error.js';
import { ALL_STREAMS, categoryOf, isCategory, isEntityStream, streamName } from '../../src/ports/stream-names.js';
import { describeStreamNameProperties } from './stream-names.properties.js';

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
});

describeStreamNameProperties('fast');
