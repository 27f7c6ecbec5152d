/**
 * Issue 10, point 4: generated values for every field kind — hostile strings, huge and odd
 * numbers, numeric strings, dates, lists, dicts and value objects with hostile keys, values
 * thousands of levels deep. For every case, either the field holds exactly the value given
 * (checked against an oracle written independently of the coercion code, and unchanged through
 * toPlain → canonical JSON → fromPlain), or creation throws a ValidationError whose every path
 * starts with the field's name. Any other exception, a changed value or a hang fails the case.
 *
 * Run by field-values.property.unit.spec.ts (a fixed seed, the fast tier) and
 * field-values.property.load.spec.ts (a random seed, more runs); fast-check prints the seed and
 * the shrunk counterexample on failure, and FC_SEED=<seed> repeats it (property-settings.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseValueObject, Domain, field, fieldsOf, ValidationError, type FieldDefinition } from '../../src/index.js';
import { canonicalJson } from '../../src/messages/canonical-json.js';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';

const domain = new Domain('FieldValues');

@domain.valueObject()
class Point extends BaseValueObject {
  @field.float() x?: number;
  @field.string({ maxLength: 10 }) label?: string;
  @field.dict() meta?: Record<string, unknown>;
}

@domain.valueObject()
class TreeNode extends BaseValueObject {
  @field.integer() weight?: number;
  @field.valueObject(() => TreeNode) child?: TreeNode;
}

@domain.aggregate()
class Sample extends BaseAggregate {
  @field.string({ maxLength: 20 }) short?: string;
  @field.text() long?: string;
  @field.integer() count?: number;
  @field.float() ratio?: number;
  @field.decimal({ precision: 12, scale: 2 }) amount?: number;
  @field.decimal() exact?: number;
  @field.boolean() flag?: boolean;
  @field.date() day?: Date;
  @field.datetime() at?: Date;
  @field.identifier() ref?: string;
  @field.status({ values: ['NEW', 'toString', '__proto__', 'constructor'] }) state?: string;
  @field.list({ of: 'integer' }) counts?: number[];
  @field.list({ of: 'datetime' }) times?: Date[];
  @field.list({ of: () => Point }) points?: Point[];
  @field.dict() extra?: Record<string, unknown>;
  @field.valueObject(() => Point) point?: Point;
  @field.valueObject(() => TreeNode) tree?: TreeNode;
  @field.hasMany(() => Line) lines?: Line[];
  @field.hasOne(() => Line) mainLine?: Line;
  @field.reference(() => Sample) parent?: string;
}

@domain.entity({ partOf: Sample })
class Line extends BaseEntity {
  @field.string() sku?: string;
  @field.decimal({ scale: 3 }) quantity?: number;
}

// --- generators -----------------------------------------------------------------------------

const HOSTILE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '', 'x', 'label', 'weight', 'child', 'sku'];
const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 4 }));

/** A plain object with own keys (`__proto__` included) defined, never assigned. */
const objectOf = (value: fc.Arbitrary<unknown>) =>
  fc.array(fc.tuple(key, value), { maxLength: 4 }).map((entries) => {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
    return obj;
  });

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', 'a', ' ', '😀'), loneSurrogate), maxLength: 8 }),
  fc.constantFrom('true', 'false', 'NEW', 'toString', '__proto__', ' ', 'x'.repeat(300)),
);
const SPECIAL_NUMBERS = [
  0,
  -0,
  2 ** 53,
  2 ** 53 - 1,
  -(2 ** 53),
  1e21,
  1e308 * 10,
  -Infinity,
  Number.NaN,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  0.1 + 0.2,
  1.005,
  -2.675,
  99999999999.995,
];
const numbers = fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), fc.constantFrom(...SPECIAL_NUMBERS), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }));
const numericText = fc.oneof(
  fc.double().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.stringMatching(/^ ?[+-]?\d{0,22}(\.\d{0,22})?([eE][+-]?\d{1,3})? ?$/),
  fc.constantFrom('1e400', '-1e400', '1e-400', '9007199254740993', '0x10', 'NaN', 'Infinity', '', '.', '1.', '.5', '-0', '1e99999999999999999999'),
);
const validDate = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
const dates = fc.oneof(
  fc.date(),
  validDate,
  validDate.map((d) => d.toISOString()),
  validDate.map((d) => d.toISOString().slice(0, 10)),
  validDate.map((d) => d.toISOString().replace('Z', '+05:30')),
  fc.constantFrom(
    '2024-02-30',
    '2023-02-29',
    '0000-01-01',
    '2024-01-01T00:00:00.1234Z',
    '2024-01-01T00:00:00.123000Z',
    '2024-13-01',
    '+010000-01-01T00:00:00Z',
    '0050-06-15',
  ),
);
const scalar = fc.oneof(text, numbers, numericText, dates, fc.boolean(), fc.constantFrom(null, undefined));
const { json } = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('json'), { maxLength: 4 }), objectOf(tie('json'))),
}));

/** `levels` deep: nested objects, arrays, or value-object-shaped objects. */
const deep = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom('object', 'array', 'tree')).map(([levels, shape]) => {
  let value: unknown = shape === 'tree' ? { weight: 1 } : 1;
  for (let i = 0; i < levels; i++) value = shape === 'object' ? { a: value } : shape === 'array' ? [value] : { weight: i, child: value };
  return value;
});
const odd = fc.constantFrom<unknown>(new Map([['a', 1]]), new Date(Number.NaN), Object.create(null), [1, , 3], () => 1, Symbol('s'), new (class Custom {})(), [
  undefined,
]);

const anything: fc.Arbitrary<unknown> = fc.oneof(scalar, json, deep, odd, fc.array(scalar, { maxLength: 5 }), objectOf(json));

/** Inputs for one field: anything at all, plus values close to what it accepts. */
function inputsFor(def: FieldDefinition): fc.Arbitrary<unknown> {
  const element = (cls: () => unknown) =>
    fc
      .array(fc.tuple(fc.constantFrom(...fieldsOf(cls() as never).map((f) => f.name), ...HOSTILE_KEYS), fc.oneof(anything, deep)), { maxLength: 4 })
      .map((entries) => {
        const obj: Record<string, unknown> = {};
        for (const [k, v] of entries) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
        return obj;
      });
  switch (def.kind) {
    case 'valueObject':
    case 'hasOne':
      return fc.oneof(anything, element(def.target!));
    case 'hasMany':
      return fc.oneof(anything, fc.array(fc.oneof(element(def.target!), anything), { maxLength: 3 }));
    case 'list':
      return fc.oneof(
        anything,
        fc.array(typeof def.of === 'function' ? fc.oneof(element(def.of), anything) : fc.oneof(inputsFor({ ...def, kind: def.of! }), anything), {
          maxLength: 5,
        }),
      );
    case 'integer':
    case 'float':
    case 'decimal':
      return fc.oneof(anything, numbers, numericText);
    case 'date':
    case 'datetime':
      return fc.oneof(anything, dates);
    case 'dict':
      return fc.oneof(anything, objectOf(json), deep);
    default:
      return fc.oneof(anything, text);
  }
}

// --- the oracle: what an accepted value must be, written without the coercion code ------------

const isMissing = (def: FieldDefinition, raw: unknown) =>
  raw === undefined || raw === null || (raw === '' && ['string', 'text', 'identifier', 'status', 'reference'].includes(def.kind));

/** Numerator and denominator of a decimal text (`-1.5e3`), or undefined when it is not one. */
function rational(textValue: string): [bigint, bigint] | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(textValue.trim());
  if (!m || !/\d/.test(`${m[2]}${m[3] ?? ''}`)) return undefined;
  const exponent = Number(m[4] ?? 0) - (m[3] ?? '').length;
  if (Math.abs(exponent) > 5000) return undefined;
  const magnitude = BigInt(`${m[2]}${m[3] ?? ''}`);
  const digits = m[1] === '-' ? -magnitude : magnitude;
  return exponent >= 0 ? [digits * 10n ** BigInt(exponent), 1n] : [digits, 10n ** BigInt(-exponent)];
}

function rationalOfInput(raw: unknown): [bigint, bigint] | undefined {
  if (typeof raw === 'bigint') return [raw, 1n];
  if (typeof raw === 'number') return Number.isFinite(raw) ? rational(String(raw)) : undefined;
  if (typeof raw === 'string') return rational(raw);
  return undefined;
}

const sameRational = (a: [bigint, bigint], b: [bigint, bigint]) => a[0] * b[1] === b[0] * a[1];

/** `r` rounded half away from zero to `scale` decimals. */
function roundRational([n, d]: [bigint, bigint], scale: number): [bigint, bigint] {
  const unit = 10n ** BigInt(scale);
  const negative = n < 0n;
  const abs = negative ? -n : n;
  let q = (abs * unit) / d;
  if (((abs * unit) % d) * 2n >= d) q += 1n;
  return [negative ? -q : q, unit];
}

function expectNumber(def: FieldDefinition, raw: unknown, value: unknown): void {
  expect(typeof value).toBe('number');
  const n = value as number;
  expect(Number.isFinite(n) && !Object.is(n, -0)).toBe(true);
  const given = rationalOfInput(raw);
  expect(given, `accepted ${String(raw)} which is not a number`).toBeDefined();
  const held = rational(String(n))!;
  if (def.kind === 'integer') expect(Number.isSafeInteger(n)).toBe(true);
  const scale = def.kind === 'decimal' ? (def.scale ?? (def.precision !== undefined ? 0 : undefined)) : undefined;
  const expected = scale === undefined ? given! : roundRational(given!, scale);
  expect(sameRational(held, expected), `${String(raw)} held as ${n}`).toBe(true);
}

function expectStored(def: FieldDefinition, raw: unknown, value: unknown): void {
  if (isMissing(def, raw)) {
    if (def.kind === 'hasMany') expect(value).toEqual([]);
    else if (raw === '' && (def.kind === 'string' || def.kind === 'text')) expect(value).toBe('');
    else expect(value).toBeUndefined();
    return;
  }
  switch (def.kind) {
    case 'string':
    case 'text':
    case 'identifier':
    case 'reference':
    case 'status':
      expect(typeof value).toBe('string');
      if (typeof raw === 'string') expect(value).toBe(raw);
      else expect(rational(value as string) && sameRational(rational(value as string)!, rationalOfInput(raw)!)).toBe(true);
      expect((value as string).includes('\u0000') || !(value as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(false);
      return;
    case 'integer':
    case 'float':
    case 'decimal':
      return expectNumber(def, raw, value);
    case 'boolean':
      expect(value).toBe(raw === true || raw === 'true');
      expect([true, false, 'true', 'false']).toContain(raw);
      return;
    case 'date':
    case 'datetime': {
      expect(value).toBeInstanceOf(Date);
      const d = value as Date;
      expect(d.getUTCFullYear()).toBeGreaterThanOrEqual(1);
      expect(d.getUTCFullYear()).toBeLessThanOrEqual(9999);
      const given = raw instanceof Date ? raw : new Date(raw as string);
      if (def.kind === 'datetime') expect(d.getTime()).toBe(given.getTime());
      else if (raw instanceof Date || (raw as string).length > 10) expect(d.toISOString().slice(0, 10)).toBe(given.toISOString().slice(0, 10));
      else expect(d.toISOString().slice(0, 10)).toBe((raw as string).trim());
      return;
    }
    case 'dict':
      expectSameJson(raw, value);
      return;
    case 'list':
    case 'hasMany': {
      expect(Array.isArray(raw) && Array.isArray(value)).toBe(true);
      const items = raw as unknown[];
      expect((value as unknown[]).length).toBe(items.length);
      const item: FieldDefinition =
        def.kind === 'hasMany'
          ? { ...def, kind: 'valueObject' }
          : typeof def.of === 'function'
            ? { ...def, kind: 'valueObject', target: def.of }
            : { ...def, kind: def.of! };
      items.forEach((r, i) => expectStored(item, r, (value as unknown[])[i]));
      return;
    }
    case 'valueObject':
    case 'hasOne': {
      const target = def.target!();
      expect(value).toBeInstanceOf(target);
      if (raw instanceof target) return expect(value).toBe(raw);
      const given = raw as Record<string, unknown>;
      // A key given as undefined is absent (as in JSON); any other unknown key must have been refused.
      for (const k of Object.keys(given))
        if (given[k] !== undefined)
          expect(
            fieldsOf(target).map((f) => f.name),
            `accepted unknown key ${k}`,
          ).toContain(k);
      for (const f of fieldsOf(target))
        if (!f.implicit) expectStored(f, Object.hasOwn(given, f.name) ? given[f.name] : undefined, (value as Record<string, unknown>)[f.name]);
      return;
    }
    default:
      throw new Error(`no oracle for ${def.kind}`);
  }
}

/** `value` is `raw` as JSON: same own keys (hostile ones included), same scalars (-0 as 0). */
function expectSameJson(raw: unknown, value: unknown): void {
  if (typeof raw === 'number') return expect(Object.is(value, raw === 0 ? 0 : raw) && Number.isFinite(raw)).toBe(true);
  if (typeof raw === 'string') {
    expect(value).toBe(raw);
    return expect(raw.includes('\u0000') || !(raw as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(false);
  }
  if (raw === null || typeof raw === 'boolean') return expect(value).toBe(raw);
  expect(typeof raw === 'object' && raw !== null, `accepted ${typeof raw} inside a dict`).toBe(true);
  if (Array.isArray(raw)) {
    expect(Array.isArray(value) && (value as unknown[]).length === raw.length).toBe(true);
    for (let i = 0; i < raw.length; i++) {
      expect(Object.hasOwn(raw, i)).toBe(true);
      expectSameJson(raw[i], (value as unknown[])[i]);
    }
    return;
  }
  expect([Object.prototype, null]).toContain(Object.getPrototypeOf(raw));
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  const given = raw as Record<string, unknown>;
  expect(Object.keys(value as object)).toEqual(Object.keys(given));
  for (const k of Object.keys(given)) expectSameJson(given[k], (value as Record<string, unknown>)[k]);
}

// --- the property -----------------------------------------------------------------------------

function checkField(def: FieldDefinition, raw: unknown): void {
  const input = Object.defineProperty({}, def.name, { value: raw, enumerable: true, writable: true, configurable: true });
  let sample: Sample;
  try {
    sample = Sample.create(input as never);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw new Error(`${def.name}: ${describeError(error)} instead of a ValidationError`);
    const paths = Object.keys(error.errors);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path === def.name || path.startsWith(`${def.name}.`), `error path ${path}`).toBe(true);
    return;
  }
  const value = (sample as unknown as Record<string, unknown>)[def.name];
  expectStored(def, raw, value);
  // toPlain → canonical JSON → fromPlain gives the same element, and the same bytes again.
  const written = canonicalJson(sample.toPlain());
  const loaded = Sample.fromPlain(JSON.parse(written));
  expect(canonicalJson(loaded.toPlain())).toBe(written);
  const reread = (loaded as unknown as Record<string, unknown>)[def.name];
  if (value instanceof Date) expect((reread as Date).getTime()).toBe(value.getTime());
  else if (typeof value === 'number') expect(Object.is(reread, value)).toBe(true);
  else expect(canonicalJson(reread)).toBe(canonicalJson(value));
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 300)}` : String(error);
}

export function describeFieldValueProperties(tier: PropertyTier): void {
  describe('every field kind holds exactly what it validated, or names itself in a ValidationError', () => {
    const defs = fieldsOf(Sample).filter((def) => !def.implicit);
    const run = propertyRun(tier, { seed: 20261124, fastRuns: 1_000, loadRuns: 5_000 });

    it('covers every field kind', () => {
      expect(new Set(defs.map((d) => d.kind))).toEqual(
        new Set([
          'string',
          'text',
          'integer',
          'float',
          'decimal',
          'boolean',
          'date',
          'datetime',
          'identifier',
          'status',
          'list',
          'dict',
          'valueObject',
          'hasOne',
          'hasMany',
          'reference',
        ]),
      );
    });

    it.each(defs.map((def) => [def.name, def.kind, def] as const))(
      `%s (%s, seed ${run.seed})`,
      (_, __, def) => {
        fc.assert(
          fc.property(inputsFor(def), (raw) => checkField(def, raw)),
          run,
        );
      },
      Math.max(30_000, run.numRuns * 20),
    );
  });
}
