/**
 * Issue 10, point 2 (and the same class of defect beyond numbers): a field holds exactly the
 * value it validated, the same in memory, in JSON and in its PostgreSQL column, or refuses it
 * with a ValidationError naming the field. Nothing is silently rounded, clipped or dropped.
 */
import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseValueObject, Domain, FieldDeclarationError, field, ValidationError } from '../../src/index.js';
import { MAX_NESTING_DEPTH } from '../../src/fields/nesting-depth.js';

const domain = new Domain('ExactValues');

@domain.valueObject()
class Node extends BaseValueObject {
  @field.string() label?: string;
  @field.valueObject(() => Node) child?: Node;
}

@domain.aggregate()
class Holder extends BaseAggregate {
  @field.integer() count?: number;
  @field.float() ratio?: number;
  @field.decimal() amount?: number;
  @field.decimal({ precision: 10, scale: 2 }) price?: number;
  @field.decimal({ precision: 5 }) whole?: number;
  @field.string() text?: string;
  @field.identifier() ref?: string;
  @field.date() day?: Date;
  @field.datetime() at?: Date;
  @field.list({ of: 'integer' }) counts?: number[];
  @field.dict() extra?: Record<string, unknown>;
  @field.valueObject(() => Node) tree?: Node;
}

function reasonsFor(field: string, fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const errors = (error as ValidationError).errors;
    expect(Object.keys(errors), JSON.stringify(errors)).toContain(field);
    return errors[field]!;
  }
  throw new Error(`expected a ValidationError naming ${field}`);
}

const create = (props: Record<string, unknown>) => Holder.create(props as never);

describe('integers are safe integers or refused', () => {
  it.each([
    ['2^53', 2 ** 53],
    ['1e21', 1e21],
    ['-(2^53)', -(2 ** 53)],
    ['"9007199254740993"', '9007199254740993'],
    ['"-9007199254740993"', '-9007199254740993'],
    ['a long digit string', '9'.repeat(400)],
    ['a bigint past 2^53', 9007199254740993n],
  ])('%s', (_, value) => {
    expect(reasonsFor('count', () => create({ count: value }))[0]).toMatch(/must be a safe integer/);
  });

  it.each([['"1e400"'], ['"1.5"'], ['NaN'], ['Infinity'], ['"0x10"']])('%s is not an integer', (text) => {
    const value = text.startsWith('"') ? JSON.parse(text) : Number(text);
    expect(reasonsFor('count', () => create({ count: value }))[0]).toMatch(/must be an integer|must be a safe integer/);
  });

  it('keeps the largest safe integers, as numbers, strings and bigints, and writes -0 as 0', () => {
    expect(create({ count: Number.MAX_SAFE_INTEGER }).count).toBe(9007199254740991);
    expect(create({ count: '-9007199254740991' }).count).toBe(-9007199254740991);
    expect(create({ count: 9007199254740991n }).count).toBe(9007199254740991);
    expect(Object.is(create({ count: -0 }).count, 0)).toBe(true);
    expect(create({ counts: [1, '2', 3n] }).counts).toEqual([1, 2, 3]);
    expect(reasonsFor('counts.1', () => create({ counts: [1, 2 ** 60] }))[0]).toMatch(/safe integer/);
  });
});

describe('floats are finite and exactly the number given', () => {
  it.each([
    ['"1e400"', '1e400', /out of range/],
    ['1e308 * 10', 1e308 * 10, /finite/],
    ['-Infinity', -Infinity, /finite/],
    ['NaN', Number.NaN, /NaN/],
    ['"1e-400" (becomes 0)', '1e-400', /would become 0/],
    ['"0.1000000000000000000001" (becomes 0.1)', '0.1000000000000000000001', /would become 0.1 /],
    ['"9007199254740993" (becomes ...992)', '9007199254740993', /would become 9007199254740992/],
  ])('%s is refused', (_, value, reason) => {
    expect(reasonsFor('ratio', () => create({ ratio: value }))[0]).toMatch(reason);
  });

  it('keeps every finite number, numeric strings with the digits a number holds, and -0 as 0', () => {
    for (const n of [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, 1e21, -1e-7]) expect(create({ ratio: n }).ratio).toBe(n);
    expect(create({ ratio: '0.1' }).ratio).toBe(0.1);
    expect(create({ ratio: '1.7976931348623157e308' }).ratio).toBe(Number.MAX_VALUE);
    expect(create({ ratio: '  12.50 ' }).ratio).toBe(12.5);
    expect(Object.is(create({ ratio: -0 }).ratio, 0)).toBe(true);
    expect(Object.is(create({ ratio: '-0.0' }).ratio, 0)).toBe(true);
  });
});

describe('decimals are rounded like numeric(p, s) and held exactly', () => {
  it('rounds half away from zero on the decimal digits, as PostgreSQL does', () => {
    // 1.005 is 1.00499999999999989... in binary; numeric(10,2) given "1.005" stores 1.01.
    expect(create({ price: 1.005 }).price).toBe(1.01);
    expect(create({ price: '1.005' }).price).toBe(1.01);
    expect(create({ price: -2.675 }).price).toBe(-2.68);
    expect(create({ price: '12.345000000000000000000001' }).price).toBe(12.35);
    expect(Object.is(create({ price: -0.001 }).price, 0)).toBe(true);
  });

  it('a precision without a scale means whole numbers (numeric(p, 0)), as in the column', () => {
    expect(create({ whole: 1.5 }).whole).toBe(2);
    expect(create({ whole: 99999.4 }).whole).toBe(99999);
    expect(reasonsFor('whole', () => create({ whole: 99999.5 }))).toEqual(['must have at most 5 digits before the decimal point']);
  });

  it('counts the integer digits of huge values (1e25 is 26 digits, not "1e+25")', () => {
    expect(reasonsFor('price', () => create({ price: 1e25 }))).toEqual(['must have at most 8 digits before the decimal point']);
    expect(reasonsFor('price', () => create({ price: '1e400' }))).toEqual(['must have at most 8 digits before the decimal point']);
    expect(create({ price: 99999999.99 }).price).toBe(99999999.99);
  });

  it('refuses what a number cannot hold instead of rounding it away', () => {
    expect(reasonsFor('amount', () => create({ amount: '0.12345678901234567890' }))[0]).toMatch(/would become 0.12345678901234568/);
    expect(reasonsFor('amount', () => create({ amount: '1e400' }))[0]).toMatch(/out of range/);
    expect(reasonsFor('amount', () => create({ amount: Infinity }))[0]).toMatch(/finite/);
    expect(create({ amount: 5e-324 }).amount).toBe(5e-324);
  });

  it('refuses decimal settings no numeric column has', () => {
    expect(() => field.decimal({ scale: 101.5 })).toThrow(FieldDeclarationError);
    expect(() => field.decimal({ precision: 1001 })).toThrow(/precision must be a whole number from 1 to 1000/);
    expect(() => field.integer({ min: Number.NaN })).toThrow(/min must be a finite number/);
    expect(() => field.string({ maxLength: 20_000_000 })).toThrow(/maxLength must be a whole number/);
    expect(() => field.list({ of: 'status' as never })).toThrow(/of must be one of/);
  });
});

describe('strings, dates and lists hold what they validated', () => {
  it('refuses NUL characters and unpaired surrogates, which PostgreSQL would refuse or replace', () => {
    expect(reasonsFor('text', () => create({ text: 'a\u0000b' }))[0]).toMatch(/NUL/);
    expect(reasonsFor('text', () => create({ text: 'a\uD800b' }))[0]).toMatch(/surrogate/);
    expect(reasonsFor('ref', () => create({ ref: '\uDC00' }))[0]).toMatch(/surrogate/);
    expect(reasonsFor('extra.k', () => create({ extra: { k: 'x\u0000' } }))[0]).toMatch(/NUL/);
    expect(create({ text: 'emoji 😀 ok' }).text).toBe('emoji 😀 ok');
  });

  it('turns only exact numbers into strings and identifiers', () => {
    expect(create({ text: 0.5, ref: 42 }).toPlain()).toMatchObject({ text: '0.5', ref: '42' });
    expect(reasonsFor('text', () => create({ text: 1e21 }))[0]).toMatch(/must be a string/);
    expect(reasonsFor('ref', () => create({ ref: 2 ** 60 }))[0]).toMatch(/non-empty string or a number/);
    expect(reasonsFor('ref', () => create({ ref: 'x'.repeat(256) }))[0]).toMatch(/at most 255/);
  });

  it('keeps years 1 to 9999 exactly (years below 100 are not 19xx) and refuses the rest', () => {
    const early = new Date(0);
    early.setUTCFullYear(50, 5, 15);
    expect(create({ day: early }).day!.getUTCFullYear()).toBe(50);
    expect(create({ day: '0050-06-15' }).toPlain().day).toBe('0050-06-15');
    expect(Holder.fromPlain(create({ day: '0001-01-01', at: '9999-12-31T23:59:59.999Z' }).toPlain()).toPlain()).toMatchObject({
      day: '0001-01-01',
      at: '9999-12-31T23:59:59.999Z',
    });
    expect(reasonsFor('day', () => create({ day: new Date('+010000-01-01T00:00:00Z') }))[0]).toMatch(/between the years 1 and 9999/);
    expect(reasonsFor('at', () => create({ at: '0000-12-31T00:00:00Z' }))[0]).toMatch(/between the years 1 and 9999/);
  });

  it('refuses date-times with more than millisecond precision instead of cutting it', () => {
    expect(reasonsFor('at', () => create({ at: '2024-05-01T10:00:00.1234Z' }))[0]).toMatch(/more precision than milliseconds/);
    expect(create({ at: '2024-05-01T10:00:00.123000Z' }).at!.toISOString()).toBe('2024-05-01T10:00:00.123Z');
  });

  it('refuses arrays with holes instead of reading them back as nulls, even a huge sparse one at once', () => {
    expect(reasonsFor('counts', () => create({ counts: [1, , 3] }))[0]).toMatch(/holes/);
    const sparse: number[] = [];
    sparse.length = 1e9;
    const started = Date.now();
    expect(reasonsFor('counts', () => create({ counts: sparse }))[0]).toMatch(/holes/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses dict values JSON would drop or change', () => {
    expect(reasonsFor('extra.n', () => create({ extra: { n: Number.NaN } }))).toEqual(['NaN is not a JSON number']);
    expect(reasonsFor('extra.u', () => create({ extra: { u: undefined } }))[0]).toMatch(/undefined is not a JSON value/);
    expect(reasonsFor('extra.d', () => create({ extra: { d: new Date() } }))[0]).toMatch(/store its ISO string/);
    expect(reasonsFor('extra.m', () => create({ extra: { m: new Map() } }))[0]).toMatch(/not plain JSON/);
    expect(reasonsFor('extra.l.1', () => create({ extra: { l: [1, 2n] } }))[0]).toMatch(/bigint 2 is not a JSON value/);
    expect(Object.is((create({ extra: { z: -0 } }).extra as { z: number }).z, 0)).toBe(true);
  });

  it('refuses an element made with `new`, whose fields were never validated', () => {
    expect(reasonsFor('tree', () => create({ tree: new Node() }))[0]).toMatch(/made with `new`/);
  });
});

describe('deep nesting ends in a ValidationError, never a stack overflow', () => {
  const nested = (levels: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < levels; i++) value = wrap(value);
    return value;
  };

  it.each([100_000, MAX_NESTING_DEPTH + 1])('value objects %i levels deep', (levels) => {
    try {
      create({ tree: nested(levels, { label: 'leaf' }, (child) => ({ child })) });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      const [path, reasons] = Object.entries((error as ValidationError).errors)[0]!;
      expect(path).toMatch(/^tree(\.child)+$/);
      expect(reasons[0]).toMatch(/nests deeper than 64 levels/);
    }
  });

  it.each([100_000, MAX_NESTING_DEPTH])('dicts and arrays %i levels deep', (levels) => {
    const errorsOf = (extra: unknown) => {
      try {
        create({ extra });
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return Object.values((error as ValidationError).errors).flat();
      }
      return [];
    };
    expect(errorsOf(nested(levels, 1, (inner) => ({ a: inner })))[0]).toMatch(/nests deeper than/);
    expect(errorsOf({ a: nested(levels, 1, (inner) => [inner]) })[0]).toMatch(/nests deeper than/);
  });

  it('a cycle is refused the same way', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(
      Object.values(
        (() => {
          try {
            create({ extra: cyclic });
          } catch (e) {
            return (e as ValidationError).errors;
          }
          return {};
        })(),
      ).flat()[0],
    ).toMatch(/cycle/);
  });

  it('keeps values just inside the limit and reads them back equal', () => {
    const tree = nested(MAX_NESTING_DEPTH - 2, { label: 'leaf' }, (child) => ({ child }));
    const holder = create({ tree });
    expect(Holder.fromPlain(JSON.parse(JSON.stringify(holder.toPlain()))).toPlain()).toEqual(holder.toPlain());
  });
});
