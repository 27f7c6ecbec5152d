/**
 * Issue 10, point 1: keys named like Object.prototype members (`__proto__`, `constructor`,
 * `toString`) in element input, nested values and dicts are data like any other key: refused
 * with a ValidationError naming them, or kept as own keys, never a TypeError from a prototype.
 */
import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseValueObject, Domain, FieldDeclarationError, field, ValidationError } from '../../src/index.js';
import { addFieldError, mergeFieldErrors, type FieldErrors } from '../../src/errors/validation.error.js';

const domain = new Domain('HostileKeys');

@domain.valueObject()
class Money extends BaseValueObject {
  @field.decimal({ required: true, scale: 2 }) amount!: number;
  @field.string({ required: true }) currency!: string;
}

@domain.aggregate()
class Account extends BaseAggregate {
  @field.string() name?: string;
  @field.valueObject(() => Money) balance?: Money;
  @field.list({ of: () => Money }) history?: Money[];
  @field.dict() extra?: Record<string, unknown>;
  @field.list({ of: 'dict' }) notes?: Record<string, unknown>[];
  @field.status({ values: ['toString', 'constructor', 'valueOf', 'OPEN'], transitions: { OPEN: ['toString'] } }) state?: string;
}

const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

function validationErrors(fn: () => unknown): FieldErrors {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  }
  throw new Error('expected a ValidationError');
}

/** An object with `key` as an own property, as JSON.parse makes it (a literal `{ __proto__: 1 }` would set the prototype). */
function withKey(key: string, value: unknown, rest: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.defineProperty({ ...rest }, key, { value, enumerable: true, writable: true, configurable: true });
}

describe('hostile keys', () => {
  it.each(HOSTILE)('an unknown top-level key %s is a ValidationError naming it', (key) => {
    const errors = validationErrors(() => Account.create(withKey(key, 1) as never));
    expect(Object.hasOwn(errors, key)).toBe(true);
    expect(errors[key]).toEqual(['is not a field of Account']);
  });

  it.each(HOSTILE)('an unknown key %s in a nested value object is named by its path', (key) => {
    const errors = validationErrors(() => Account.create({ balance: withKey(key, 'x', { amount: 1, currency: 'EUR' }) as never }));
    expect(errors[`balance.${key}`]).toEqual(['is not a field of Money']);
    const inList = validationErrors(() => Account.create({ history: [withKey(key, 'x', { amount: 1, currency: 'EUR' }) as never] }));
    expect(inList[`history.0.${key}`]).toEqual(['is not a field of Money']);
  });

  it.each(HOSTILE)('a dict keeps %s as an own key, not as its prototype, through toPlain and JSON', (key) => {
    const extra = withKey(key, { deep: withKey(key, [1]) });
    const account = Account.create({ extra, notes: [extra] });
    expect(Object.getPrototypeOf(account.extra)).toBe(Object.prototype);
    expect(Object.hasOwn(account.extra!, key)).toBe(true);
    expect(Object.hasOwn((account.extra as Record<string, Record<string, unknown>>)[key]!.deep as object, key)).toBe(true);
    const again = Account.fromPlain(JSON.parse(JSON.stringify(account.toPlain())));
    expect(JSON.stringify(again.toPlain())).toBe(JSON.stringify(account.toPlain()));
    expect(JSON.stringify(again.extra)).toBe(JSON.stringify(extra));
  });

  it('a value under a hostile key inside a dict is checked like any other value', () => {
    const errors = validationErrors(() => Account.create({ extra: withKey('constructor', { toString: Number.NaN }) }));
    expect(errors['extra.constructor.toString']).toEqual(['NaN is not a JSON number']);
  });

  it('status values named like Object.prototype members move along their transitions only', () => {
    const account = Account.create({ state: 'OPEN' });
    account.state = 'toString';
    expect(account.state).toBe('toString');
    // `toString` has no outgoing move: a final state, not Object.prototype.toString.
    expect(validationErrors(() => (account.state = 'constructor')).state).toEqual(['cannot move from toString to constructor (toString is a final state)']);
    const other = Account.create({ state: 'constructor' });
    expect(validationErrors(() => (other.state = 'valueOf')).state![0]).toMatch(/constructor is a final state/);
  });

  it('error maps take hostile keys as own entries, however they were made', () => {
    const errors: FieldErrors = {};
    for (const key of HOSTILE) addFieldError(errors, key, 'bad');
    addFieldError(errors, 'toString', 'worse');
    expect(Object.keys(errors)).toEqual(HOSTILE);
    expect(errors.toString).toEqual(['bad', 'worse']);
    const merged: FieldErrors = {};
    mergeFieldErrors(merged, errors, 'outer');
    mergeFieldErrors(merged, errors);
    expect(merged['outer.__proto__']).toEqual(['bad']);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(new ValidationError(merged, 'X').message).toContain('__proto__: bad');
  });

  it.each(HOSTILE)('a field cannot be named %s', (key) => {
    expect(() => field.string()({} as never, key as never)).toThrow(FieldDeclarationError);
  });
});
