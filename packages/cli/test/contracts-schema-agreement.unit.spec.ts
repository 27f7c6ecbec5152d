/**
 * The exported JSON Schema and the runtime's field validation must agree. Field definitions
 * are generated (kinds, limits, required or not), a class is declared with them, and values
 * are generated for it: valid ones must pass both ajv (with the exported schema) and
 * `fromPlain`, and a value made invalid in one field (out of range, wrong type, missing when
 * required, not one of the choices) must be refused by both.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { BaseValueObject, ValidationError, field, type ClassRef } from '@protean-ts/core';
import { fieldContractsOf } from '../src/contracts/field-contract.js';
import { messageJsonSchema } from '../src/contracts/json-schema.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);

type Spec =
  | { kind: 'string'; required: boolean; minLength: number; maxLength: number; choices?: string[] }
  | { kind: 'integer' | 'float'; required: boolean; min: number; max: number }
  | { kind: 'decimal'; required: boolean; precision: number; scale: number }
  | { kind: 'boolean' | 'date' | 'datetime' | 'identifier' | 'money' | 'integers'; required: boolean }
  | { kind: 'status'; required: boolean; values: string[] };

class Money extends BaseValueObject {
  @field.decimal({ required: true, min: 0, precision: 10, scale: 2 }) amount!: number;
  @field.string({ required: true, pattern: /^[A-Z]{3}$/ }) currency!: string;
}

const word = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom(...'abcdefghij') });
const specArb: fc.Arbitrary<Spec> = fc.oneof(
  fc
    .record({
      required: fc.boolean(),
      minLength: fc.integer({ min: 0, max: 4 }),
      extra: fc.integer({ min: 0, max: 12 }),
      withChoices: fc.boolean(),
      choices: fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
    })
    .map(({ required, minLength, extra, withChoices, choices }): Spec => ({
      kind: 'string',
      required,
      minLength,
      maxLength: Math.max(1, minLength + extra),
      ...(withChoices ? { choices: choices.filter((c) => c.length >= minLength && c.length <= Math.max(1, minLength + extra)) } : {}),
    })),
  fc
    .record({
      kind: fc.constantFrom('integer' as const, 'float' as const),
      required: fc.boolean(),
      a: fc.integer({ min: -1000, max: 1000 }),
      b: fc.integer({ min: -1000, max: 1000 }),
    })
    .map(({ kind, required, a, b }): Spec => ({ kind, required, min: Math.min(a, b), max: Math.max(a, b) })),
  fc
    .record({ required: fc.boolean(), precision: fc.integer({ min: 1, max: 12 }), s: fc.integer({ min: 0, max: 12 }) })
    .map(({ required, precision, s }): Spec => ({ kind: 'decimal', required, precision, scale: Math.min(s, precision) })),
  fc.record({
    kind: fc.constantFrom('boolean' as const, 'date' as const, 'datetime' as const, 'identifier' as const, 'money' as const, 'integers' as const),
    required: fc.boolean(),
  }),
  fc
    .record({ required: fc.boolean(), values: fc.uniqueArray(word, { minLength: 1, maxLength: 4 }) })
    .map(({ required, values }): Spec => ({ kind: 'status', required, values })),
);

function declare(spec: Spec): (prototype: object, key: string) => void {
  const r = { required: spec.required };
  const decorate = (() => {
    switch (spec.kind) {
      case 'string':
        return field.string({ ...r, minLength: spec.minLength, maxLength: spec.maxLength, ...(spec.choices?.length ? { choices: spec.choices } : {}) });
      case 'integer':
        return field.integer({ ...r, min: spec.min, max: spec.max });
      case 'float':
        return field.float({ ...r, min: spec.min, max: spec.max });
      case 'decimal':
        return field.decimal({ ...r, precision: spec.precision, scale: spec.scale });
      case 'boolean':
        return field.boolean(r);
      case 'date':
        return field.date(r);
      case 'datetime':
        return field.datetime(r);
      case 'identifier':
        return field.identifier(r);
      case 'money':
        return field.valueObject(() => Money, r);
      case 'integers':
        return field.list({ ...r, of: 'integer' });
      case 'status':
        return field.status({ ...r, values: spec.values });
    }
  })();
  return decorate as unknown as (prototype: object, key: string) => void;
}

function carrierFor(specs: readonly Spec[]): ClassRef {
  class Carrier extends BaseValueObject {}
  specs.forEach((spec, i) => declare(spec)(Carrier.prototype, `f${i}`));
  return Carrier;
}

const FIRST_DAY = new Date('0001-01-01T00:00:00.000Z');
const LAST_DAY = new Date('9999-12-31T23:59:59.999Z');
const instant = fc.date({ min: FIRST_DAY, max: LAST_DAY, noInvalidDate: true });

function validValue(spec: Spec): fc.Arbitrary<unknown> {
  switch (spec.kind) {
    case 'string':
      if (spec.choices?.length) return fc.constantFrom(...spec.choices);
      return fc.string({ minLength: Math.max(spec.minLength, spec.required ? 1 : 0), maxLength: spec.maxLength });
    case 'integer':
      return fc.integer({ min: spec.min, max: spec.max });
    case 'float':
      return fc.double({ min: spec.min, max: spec.max, noNaN: true, noDefaultInfinity: true });
    case 'decimal': {
      const units = 10 ** spec.precision - 1;
      return fc.integer({ min: -units, max: units }).map((k) => Number((k / 10 ** spec.scale).toFixed(spec.scale)));
    }
    case 'boolean':
      return fc.boolean();
    case 'date':
      return instant.map((d) => d.toISOString().slice(0, 10));
    case 'datetime':
      return instant.map((d) => d.toISOString());
    case 'identifier':
      return fc.string({ minLength: 1, maxLength: 255 }).filter((s) => s.trim() !== '');
    case 'money':
      return fc.record({
        amount: fc.integer({ min: 0, max: 10 ** 10 - 1 }).map((k) => k / 100),
        currency: fc.string({ minLength: 3, maxLength: 3, unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ') }),
      });
    case 'integers':
      return fc.array(fc.integer({ min: -1e9, max: 1e9 }), { maxLength: 5 });
    case 'status':
      return fc.constantFrom(...spec.values);
  }
}

/** Values the field must refuse; none when it accepts everything of the kinds tried (an optional boolean, say). */
function invalidValues(spec: Spec): fc.Arbitrary<unknown>[] {
  const missing = spec.required ? [fc.constant(null)] : [];
  const notScalar = fc.constantFrom<unknown>([], {}, [1]);
  switch (spec.kind) {
    case 'string': {
      const arbs = [...missing, notScalar, fc.boolean()];
      arbs.push(fc.string({ minLength: spec.maxLength + 1, maxLength: spec.maxLength + 8 }));
      if (spec.minLength >= 2) arbs.push(fc.string({ minLength: 1, maxLength: spec.minLength - 1 }));
      if (spec.choices?.length) arbs.push(word.map((w) => `${w}!`));
      return arbs;
    }
    case 'integer':
    case 'float': {
      const arbs = [
        ...missing,
        notScalar,
        fc.boolean(),
        fc.constant('many'),
        fc.integer({ min: spec.max + 1, max: spec.max + 1000 }),
        fc.integer({ min: spec.min - 1000, max: spec.min - 1 }),
      ];
      // A fraction within the bounds (none when min = max: fast-check refuses an empty range).
      if (spec.kind === 'integer' && spec.max > spec.min) arbs.push(fc.integer({ min: spec.min, max: spec.max - 1 }).map((n) => n + 0.5));
      return arbs;
    }
    case 'decimal': {
      const limit = 10 ** (spec.precision - spec.scale);
      return [
        ...missing,
        notScalar,
        fc.boolean(),
        fc.integer({ min: 0, max: 1000 }).map((n) => limit + n),
        fc.integer({ min: 0, max: 1000 }).map((n) => -limit - n),
      ];
    }
    case 'boolean':
      return [...missing, notScalar, fc.integer(), fc.constant('yes')];
    case 'date':
    case 'datetime':
      return [...missing, notScalar, fc.boolean(), fc.integer(), fc.constant('yesterday'), fc.constant('2023-02-30')];
    case 'identifier':
      return [...missing, notScalar, fc.boolean(), fc.constant('   '), fc.string({ minLength: 256, maxLength: 300 })];
    case 'money':
      return [
        ...missing,
        fc.constant('12.50 EUR'),
        fc.constant({ amount: 1, currency: 'eur' }),
        fc.constant({ amount: 1 }),
        fc.constant({ amount: -1, currency: 'EUR' }),
      ];
    case 'integers':
      return [...missing, fc.constant('1,2'), fc.constant([1, 'x']), fc.constant([null]), fc.constant([1.5])];
    case 'status':
      return [...missing, notScalar, fc.boolean(), word.filter((w) => !spec.values.includes(w))];
  }
}

const caseArb = fc.array(specArb, { minLength: 1, maxLength: 6 }).chain((specs) =>
  fc.record({
    specs: fc.constant(specs),
    values: fc.tuple(...specs.map((spec) => (spec.required ? validValue(spec) : fc.option(validValue(spec), { nil: null })))),
    omit: fc.array(fc.boolean(), { minLength: specs.length, maxLength: specs.length }),
  }),
);

function plainOf(specs: readonly Spec[], values: readonly unknown[], omit: readonly boolean[]): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  specs.forEach((spec, i) => {
    if (!(omit[i] && !spec.required)) plain[`f${i}`] = values[i];
  });
  return plain;
}

function runtimeAccepts(cls: ClassRef, plain: Record<string, unknown>): boolean {
  try {
    (cls as unknown as { fromPlain(p: Record<string, unknown>): unknown }).fromPlain(structuredClone(plain));
    return true;
  } catch (error) {
    if (error instanceof ValidationError) return false;
    throw error;
  }
}

function schemaOf(cls: ClassRef) {
  return ajv.compile(messageJsonSchema({ type: `Test.Carrier${Math.random().toString(36).slice(2)}.v1`, fields: fieldContractsOf(cls) }));
}

describe('the exported JSON Schema and the field validation agree', () => {
  it('both accept every valid value', () => {
    fc.assert(
      fc.property(caseArb, ({ specs, values, omit }) => {
        const cls = carrierFor(specs);
        const plain = plainOf(specs, values, omit);
        const validate = schemaOf(cls);
        expect({ schema: validate(plain), errors: validate.errors }).toEqual({ schema: true, errors: null });
        expect(runtimeAccepts(cls, plain)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('both refuse a value made invalid in one field', () => {
    const invalidCase = caseArb
      .filter(({ specs }) => specs.some((spec) => invalidValues(spec).length > 0))
      .chain((c) => {
        const candidates = c.specs.map((spec, i) => ({ spec, i })).filter(({ spec }) => invalidValues(spec).length > 0);
        return fc.constantFrom(...candidates).chain(({ spec, i }) => fc.oneof(...invalidValues(spec)).map((bad) => ({ ...c, at: i, bad })));
      });
    fc.assert(
      fc.property(invalidCase, ({ specs, values, omit, at, bad }) => {
        const cls = carrierFor(specs);
        const plain = { ...plainOf(specs, values, omit), [`f${at}`]: bad };
        const validate = schemaOf(cls);
        expect(validate(plain), `schema accepted f${at} = ${JSON.stringify(bad)} (${JSON.stringify(specs[at])})`).toBe(false);
        expect(runtimeAccepts(cls, plain), `runtime accepted f${at} = ${JSON.stringify(bad)} (${JSON.stringify(specs[at])})`).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
