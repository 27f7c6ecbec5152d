import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '@protean-ts/core';
import { codecFor, timestampToIso } from '../src/schema/column-codec.js';

const def = (kind: FieldDefinition['kind']): FieldDefinition => ({ name: 'f', kind, required: false, unique: false, identifier: false, implicit: false });

describe('column codecs', () => {
  it('reads timestamps in PostgreSQL text form and in JSON form as the same ISO string', () => {
    expect(timestampToIso('2024-05-01 10:11:12.345+00')).toBe('2024-05-01T10:11:12.345Z');
    expect(timestampToIso('2024-05-01 12:11:12.345+02')).toBe('2024-05-01T10:11:12.345Z');
    expect(timestampToIso('2024-05-01T10:11:12.345+00:00')).toBe('2024-05-01T10:11:12.345Z');
    expect(timestampToIso('2024-05-01 10:11:12+05:30')).toBe('2024-05-01T04:41:12.000Z');
    expect(timestampToIso(null)).toBeNull();
  });

  it('turns bigint and numeric text that is exactly a number into it, keeps JSON numbers', () => {
    expect(codecFor(def('integer')).decode('1099511627776')).toBe(2 ** 40);
    expect(codecFor(def('decimal')).decode('12.5')).toBe(12.5);
    expect(codecFor(def('decimal')).decode('-0.001')).toBe(-0.001);
    expect(codecFor(def('float')).decode(0.5)).toBe(0.5);
    expect(codecFor(def('decimal')).decode(null)).toBeNull();
  });

  it('leaves other numeric text to the field, which reads it exactly or refuses it by name', () => {
    // numeric(p, 2) prints trailing zeros; fromPlain reads "12.50" as 12.5.
    expect(codecFor(def('decimal')).decode('12.50')).toBe('12.50');
    // A bigint another program wrote past 2^53 would round as a number; fromPlain refuses it.
    expect(codecFor(def('integer')).decode('9007199254740993')).toBe('9007199254740993');
    expect(codecFor(def('decimal')).decode('0.12345678901234567890')).toBe('0.12345678901234567890');
  });

  it('sends lists and dicts as JSON text, so arrays never become PostgreSQL arrays', () => {
    expect(codecFor(def('list')).encode(['a', 'b'])).toBe('["a","b"]');
    expect(codecFor(def('dict')).encode({ a: [1] })).toBe('{"a":[1]}');
    expect(codecFor(def('list')).encode(null)).toBeNull();
  });

  it('keeps calendar dates as YYYY-MM-DD both ways', () => {
    expect(codecFor(def('date')).encode(new Date('2024-02-29T00:00:00Z'))).toBe('2024-02-29');
    expect(codecFor(def('date')).decode('2024-02-29')).toBe('2024-02-29');
  });
});
