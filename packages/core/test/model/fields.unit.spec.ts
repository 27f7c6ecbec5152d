import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseValueObject, Domain, FieldDeclarationError, field, fieldsOf, ValidationError } from '../../src/index.js';

const domain = new Domain('Fields');

@domain.valueObject()
class Money extends BaseValueObject {
  @field.decimal({ required: true, min: 0, scale: 2 }) amount!: number;
  @field.string({ required: true, choices: ['EUR', 'USD'] }) currency!: string;
}

@domain.aggregate()
class Customer extends BaseAggregate {
  @field.string({ required: true }) name!: string;
}

@domain.aggregate()
class Sample extends BaseAggregate {
  @field.string({ minLength: 2, maxLength: 5 }) code?: string;
  @field.string({ pattern: /^[A-Z]+$/ }) upper?: string;
  @field.string({ choices: ['S', 'M', 'L'] }) size?: string;
  @field.string() plain?: string;
  @field.text() notes?: string;
  @field.integer({ min: 1, max: 10 }) count?: number;
  @field.float({ min: -1.5 }) ratio?: number;
  @field.decimal({ precision: 5, scale: 2 }) price?: number;
  @field.boolean() active?: boolean;
  @field.date() birthday?: Date;
  @field.datetime({ autoNow: true }) createdAt?: Date;
  @field.datetime() seenAt?: Date;
  @field.identifier() externalId?: string;
  @field.list({ of: 'integer' }) scores?: number[];
  @field.list({ of: () => Money }) prices?: Money[];
  @field.dict() extra?: Record<string, unknown>;
  @field.valueObject(() => Money) balance?: Money;
  @field.reference(() => Customer) customer?: string;
  @field.string({ default: 'none' }) label?: string;
  @field.list({ of: 'string', default: () => ['a'] }) tags?: string[];
  @field.string({ unique: true, description: 'An email' }) email?: string;
}

function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  }
  throw new Error('expected a ValidationError');
}

describe('field definitions', () => {
  it('records every field in declaration order with the implicit id first', () => {
    const names = fieldsOf(Sample).map((f) => f.name);
    expect(names.slice(0, 4)).toEqual(['id', 'code', 'upper', 'size']);
    expect(names.at(-1)).toBe('email');
    const id = fieldsOf(Sample)[0]!;
    expect(id).toMatchObject({ kind: 'identifier', identifier: true, implicit: true, unique: true });
  });

  it('records options: unique, description, string maxLength default 255', () => {
    const byName = new Map(fieldsOf(Sample).map((f) => [f.name, f]));
    expect(byName.get('email')).toMatchObject({ unique: true, description: 'An email', kind: 'string', maxLength: 255 });
    expect(byName.get('notes')!.maxLength).toBeUndefined();
    expect(byName.get('price')).toMatchObject({ precision: 5, scale: 2 });
    expect(byName.get('balance')!.target!()).toBe(Money);
  });

  it('has no implicit id on value objects', () => {
    expect(fieldsOf(Money).map((f) => f.name)).toEqual(['amount', 'currency']);
  });

  it('refuses nonsensical field options at declaration', () => {
    expect(() => field.string({ minLength: 5, maxLength: 2 })).toThrow(FieldDeclarationError);
    expect(() => field.integer({ min: 3, max: 1 })).toThrow(/minimum 3 is above the maximum 1/);
    expect(() => field.decimal({ precision: 2, scale: 3 })).toThrow(/scale 3 is larger than precision 2/);
    expect(() => field.status({ values: [] })).toThrow(/non-empty/);
    expect(() => field.list({} as never)).toThrow(/give the item type/);
  });

  it('refuses field names that shadow the element bases or the implicit id', () => {
    expect(() => {
      class Bad extends BaseAggregate {
        // @ts-expect-error TypeScript refuses it too; the runtime check covers plain JavaScript
        @field.integer() _version?: number;
      }
      return Bad;
    }).toThrow('field.integer() on "_version": "_version" is a member of the element base classes; rename the field');
    expect(() => {
      class Bad extends BaseAggregate {
        // @ts-expect-error TypeScript refuses it too; the runtime check covers plain JavaScript
        @field.string() id?: string;
      }
      return Bad;
    }).toThrow(/a field named "id" is the identity/);
    class Fine extends BaseAggregate {
      @field.string({ identifier: true }) override id!: string;
    }
    expect(fieldsOf(Fine).map((f) => [f.name, f.identifier, f.implicit])).toEqual([['id', true, false]]);
    expect(Fine.create({ id: 'x' }).id).toBe('x');
  });
});

describe('string and text', () => {
  it('checks length, pattern and choices, and coerces numbers', () => {
    const errors = errorsOf(() => Sample.create({ code: 'x', upper: 'abc', size: 'XL' }));
    expect(errors.code).toEqual(['must be at least 2 characters long']);
    expect(errors.upper).toEqual(['must match /^[A-Z]+$/']);
    expect(errors.size![0]).toMatch(/must be one of S, M, L/);
    expect(errorsOf(() => Sample.create({ code: 'toolong' })).code).toEqual(['must be at most 5 characters long']);
    expect(Sample.create({ plain: 42 as unknown as string }).plain).toBe('42');
    expect(errorsOf(() => Sample.create({ plain: {} as unknown as string })).plain![0]).toMatch(/must be a string/);
  });

  it('applies the 255 default maximum to string but not text', () => {
    expect(errorsOf(() => Sample.create({ plain: 'x'.repeat(256) })).plain).toEqual(['must be at most 255 characters long']);
    expect(Sample.create({ notes: 'x'.repeat(10_000) }).notes).toHaveLength(10_000);
  });
});

describe('numbers', () => {
  it('integer: accepts integers and integer strings, checks min/max', () => {
    expect(Sample.create({ count: '7' as unknown as number }).count).toBe(7);
    expect(errorsOf(() => Sample.create({ count: 1.5 })).count![0]).toMatch(/must be an integer/);
    expect(errorsOf(() => Sample.create({ count: 'seven' as unknown as number })).count![0]).toMatch(/must be an integer/);
    expect(errorsOf(() => Sample.create({ count: 0 })).count).toEqual(['must be at least 1']);
    expect(errorsOf(() => Sample.create({ count: 11 })).count).toEqual(['must be at most 10']);
  });

  it('float: accepts numeric strings, refuses NaN and Infinity', () => {
    expect(Sample.create({ ratio: '-1.25' as unknown as number }).ratio).toBe(-1.25);
    expect(errorsOf(() => Sample.create({ ratio: Number.NaN })).ratio![0]).toMatch(/must be a number/);
    expect(errorsOf(() => Sample.create({ ratio: Infinity })).ratio![0]).toMatch(/must be a number/);
    expect(errorsOf(() => Sample.create({ ratio: -2 })).ratio).toEqual(['must be at least -1.5']);
  });

  it('decimal: a number rounded to its scale, integer digits limited by precision', () => {
    expect(Sample.create({ price: 0.1 + 0.2 }).price).toBe(0.3);
    expect(Sample.create({ price: '12.345' as unknown as number }).price).toBe(12.35);
    expect(errorsOf(() => Sample.create({ price: 1234 })).price).toEqual(['must have at most 3 digits before the decimal point']);
  });
});

describe('boolean', () => {
  it('accepts booleans and "true"/"false"', () => {
    expect(Sample.create({ active: 'false' as unknown as boolean }).active).toBe(false);
    expect(errorsOf(() => Sample.create({ active: 1 as unknown as boolean })).active![0]).toMatch(/must be a boolean/);
  });
});

describe('dates', () => {
  it('date: midnight UTC from a Date or an ISO string', () => {
    const s = Sample.create({ birthday: '2024-02-29' as unknown as Date });
    expect(s.birthday!.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    const d = Sample.create({ birthday: new Date('2024-03-01T17:45:00Z') });
    expect(d.birthday!.toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect(errorsOf(() => Sample.create({ birthday: 'yesterday' as unknown as Date })).birthday![0]).toMatch(/must be a date/);
    expect(errorsOf(() => Sample.create({ birthday: '2024-13-45' as unknown as Date })).birthday![0]).toMatch(/must be a date/);
    expect(errorsOf(() => Sample.create({ birthday: '2023-02-29' as unknown as Date })).birthday![0]).toMatch(/must be a date/);
    expect(errorsOf(() => Sample.create({ seenAt: '2024-02-30T10:00:00Z' as unknown as Date })).seenAt![0]).toMatch(/must be a date-time/);
  });

  it('datetime: ISO strings, autoNow on creation only, copies the given Date', () => {
    const before = Date.now();
    const s = Sample.create({ seenAt: '2024-01-02T03:04:05.678Z' as unknown as Date });
    expect(s.seenAt!.toISOString()).toBe('2024-01-02T03:04:05.678Z');
    expect(s.createdAt!.getTime()).toBeGreaterThanOrEqual(before);
    const given = new Date('2020-01-01T00:00:00Z');
    const t = Sample.create({ createdAt: given });
    given.setUTCFullYear(1999);
    expect(t.createdAt!.getUTCFullYear()).toBe(2020);
    expect(errorsOf(() => Sample.create({ seenAt: 12345 as unknown as Date })).seenAt![0]).toMatch(/must be a date-time/);
  });
});

describe('identifier and reference', () => {
  it('identifier: any non-empty string, numbers become strings', () => {
    expect(Sample.create({ externalId: 17 as unknown as string }).externalId).toBe('17');
    expect(errorsOf(() => Sample.create({ externalId: {} as unknown as string })).externalId![0]).toMatch(/non-empty string or a number/);
  });

  it('reference: holds the id; accepts the aggregate itself', () => {
    const c = Customer.create({ name: 'Ann' });
    expect(Sample.create({ customer: c as unknown as string }).customer).toBe(c.id);
    expect(Sample.create({ customer: 'c-1' }).customer).toBe('c-1');
    expect(errorsOf(() => Sample.create({ customer: Money.create({ amount: 1, currency: 'EUR' }) as unknown as string })).customer![0]).toMatch(
      /must be the id of a Customer/,
    );
  });
});

describe('list and dict', () => {
  it('list of scalars coerces each item and reports bad items by index', () => {
    expect(Sample.create({ scores: ['1', 2] as unknown as number[] }).scores).toEqual([1, 2]);
    const errors = errorsOf(() => Sample.create({ scores: [1, 'x', null] as unknown as number[] }));
    expect(Object.keys(errors)).toEqual(['scores.1', 'scores.2']);
    expect(errorsOf(() => Sample.create({ scores: 3 as unknown as number[] })).scores![0]).toMatch(/must be an array/);
  });

  it('list of value objects builds plain items', () => {
    const s = Sample.create({ prices: [{ amount: 1, currency: 'EUR' }, Money.create({ amount: 2, currency: 'USD' })] });
    expect(s.prices![0]).toBeInstanceOf(Money);
    expect(errorsOf(() => Sample.create({ prices: [{ amount: -1, currency: 'GBP' }] }))).toEqual({
      'prices.0.amount': ['must be at least 0'],
      'prices.0.currency': ['must be one of EUR, USD; got "GBP"'],
    });
  });

  it('dict: a copied plain object; class instances are refused', () => {
    const input = { a: 1, nested: { b: [1, 2] } };
    const s = Sample.create({ extra: input });
    input.nested.b.push(3);
    expect(s.extra).toEqual({ a: 1, nested: { b: [1, 2] } });
    expect(errorsOf(() => Sample.create({ extra: new Date() as unknown as Record<string, unknown> })).extra![0]).toMatch(/plain object/);
  });
});

describe('valueObject', () => {
  it('accepts an instance or builds one from a plain object; nested errors carry the path', () => {
    const m = Money.create({ amount: 5, currency: 'EUR' });
    expect(Sample.create({ balance: m }).balance).toBe(m);
    expect(Sample.create({ balance: { amount: 3, currency: 'USD' } }).balance).toBeInstanceOf(Money);
    expect(errorsOf(() => Sample.create({ balance: { currency: 'EUR' } as never }))).toEqual({ 'balance.amount': ['is required'] });
    expect(errorsOf(() => Sample.create({ balance: 'five' as never })).balance![0]).toMatch(/must be a Money or a plain object/);
  });
});

describe('defaults and required', () => {
  it('applies value and factory defaults, fresh per object', () => {
    const a = Sample.create({});
    const b = Sample.create();
    expect(a.label).toBe('none');
    expect(a.tags).toEqual(['a']);
    expect(a.tags).not.toBe(b.tags);
    expect(Sample.create({ label: 'given' }).label).toBe('given');
  });

  it('treats undefined, null and the empty string as missing for required fields', () => {
    for (const name of [undefined, null, '']) {
      expect(errorsOf(() => Customer.create({ name: name as unknown as string }))).toEqual({ name: ['is required'] });
    }
  });

  it('refuses keys that are not fields', () => {
    expect(errorsOf(() => Customer.create({ name: 'Ann', nmae: 'x' } as never))).toEqual({ nmae: ['is not a field of Customer'] });
  });

  it('validates an assignment and keeps the old value when it fails', () => {
    const s = Sample.create({ count: 3 });
    expect(() => {
      s.count = 99;
    }).toThrow('Invalid Sample: count: must be at most 10');
    expect(s.count).toBe(3);
    s.count = '4' as unknown as number;
    expect(s.count).toBe(4);
  });
});
