/**
 * Message ids are UUIDv7 (RFC 9562): valid UUIDs whose leading 48 bits are the Unix time in ms,
 * strictly increasing within a process, so indexes keyed by them grow at one edge.
 */
import { describe, expect, it } from 'vitest';
import { newMessageId } from '../../src/index.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const timeOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('newMessageId', () => {
  it('is a version 7, RFC variant UUID carrying the time in milliseconds', () => {
    const before = Date.now();
    const id = newMessageId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it('strictly increases within a process, also when many share one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newMessageId());
    const outOfOrder = ids.filter((id, i) => i > 0 && !(id > ids[i - 1]!));
    expect(outOfOrder).toEqual([]);
  });

  it('keeps increasing when the 12-bit counter of one millisecond overflows, or the clock steps back', () => {
    const now = Date.now() + 3_600_000;
    const ids = Array.from({ length: 10_000 }, () => newMessageId(now));
    ids.push(newMessageId(now - 5_000));
    expect(ids.filter((id, i) => i > 0 && !(id > ids[i - 1]!))).toEqual([]);
    expect(ids.filter((id) => !UUID_V7.test(id))).toEqual([]);
    // 10,000 ids in one millisecond need at least two borrowed milliseconds of counter space.
    expect(timeOf(ids.at(-1)!)).toBeGreaterThan(now + 1);
  });

  it('encodes a given time big-endian in the first 48 bits', () => {
    // Later than every id the tests above minted (ids never go back), with distinct bytes in all six.
    const ms = 0xfedc_ba98_7654;
    const id = newMessageId(ms);
    expect(id.slice(0, 13)).toBe('fedcba98-7654');
    expect(timeOf(id)).toBe(ms);
  });
});
