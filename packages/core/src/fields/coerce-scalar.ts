/**
 * Turns one raw scalar into a field's value or a list of reasons. Coercion is limited to the
 * obvious (numeric strings for numbers, ISO strings for dates, numbers for ids); anything else
 * is a reason, never a guess. A value is accepted only when the field can hold it exactly, in
 * memory, in JSON and in its PostgreSQL column; otherwise the reason says what it would become.
 */
import type { FieldDefinition, FieldKind } from './field-definition.js';
import { describe, isPlainObject, unstorableCharacter } from './describe-value.js';
import { exactDecimal, exactFloat, exactInteger, type NumberResult } from './exact-number.js';
import { copyJsonValue } from './json-value.js';

/** `at`: where inside the value the problem is (`a.b.0` in a dict), relative to the field. */
export type ScalarResult = { ok: true; value: unknown } | { ok: false; reasons: string[]; at?: string };

const ok = (value: unknown): ScalarResult => ({ ok: true, value });
const bad = (...reasons: string[]): ScalarResult => ({ ok: false, reasons });

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.(\d+))?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
/** Identifiers and references live in varchar(255) columns. */
export const MAX_IDENTIFIER_LENGTH = 255;
/** Years every store agrees on: PostgreSQL has no year 0, and ISO strings past 9999 need a sign. */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

type Limits = Pick<FieldDefinition, 'min' | 'max' | 'minLength' | 'maxLength' | 'choices' | 'pattern' | 'precision' | 'scale' | 'values'>;

function checkBounds(n: number, limits: Limits, reasons: string[]): void {
  if (limits.min !== undefined && n < limits.min) reasons.push(`must be at least ${limits.min}`);
  if (limits.max !== undefined && n > limits.max) reasons.push(`must be at most ${limits.max}`);
}

function numberResult(result: NumberResult, limits: Limits): ScalarResult {
  if (!result.ok) return bad(result.reason);
  const reasons: string[] = [];
  checkBounds(result.value, limits, reasons);
  return reasons.length ? bad(...reasons) : ok(result.value);
}

/** Whole numbers as text, when the text is the number itself (an unsafe integer is already rounded). */
function wholeNumberAsText(raw: unknown): string | undefined {
  if (typeof raw === 'bigint') return String(raw);
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw === 0 ? 0 : raw);
  return undefined;
}

/** Numbers as text for string fields: whole numbers, and fractions written without an exponent. */
function numberAsText(raw: unknown): string | undefined {
  if (typeof raw === 'number' && Number.isFinite(raw) && !Number.isInteger(raw) && !String(raw).includes('e')) return String(raw);
  return wholeNumberAsText(raw);
}

function coerceString(raw: unknown, limits: Limits): ScalarResult {
  const s = typeof raw === 'string' ? raw : numberAsText(raw);
  if (s === undefined) return bad(`must be a string, got ${describe(raw)}`);
  const unstorable = unstorableCharacter(s);
  if (unstorable) return bad(unstorable);
  const reasons: string[] = [];
  if (limits.minLength !== undefined && s.length < limits.minLength) reasons.push(`must be at least ${limits.minLength} characters long`);
  if (limits.maxLength !== undefined && s.length > limits.maxLength) reasons.push(`must be at most ${limits.maxLength} characters long`);
  if (limits.choices && !limits.choices.includes(s)) reasons.push(`must be one of ${limits.choices.join(', ')}; got ${describe(s)}`);
  if (limits.pattern) {
    limits.pattern.lastIndex = 0;
    if (!limits.pattern.test(s)) reasons.push(`must match ${limits.pattern}`);
  }
  return reasons.length ? bad(...reasons) : ok(s);
}

/** Midnight UTC of a calendar day; Date.UTC would read years 0–99 as 1900–1999. */
function utcDay(year: number, monthIndex: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, monthIndex, day);
  return d;
}

/** JavaScript rolls `2024-02-30` over to March 1st; a date that does not exist is invalid instead. */
function isRealCalendarDay(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = utcDay(y, m - 1, d);
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

type DateResult = { ok: true; value: Date } | { ok: false; reason?: string };

function parseDate(raw: unknown): DateResult {
  let d: Date | undefined;
  if (raw instanceof Date) d = new Date(raw.getTime());
  else if (typeof raw === 'string') {
    const s = raw.trim();
    const datetime = ISO_DATETIME.exec(s);
    if (!ISO_DATE.test(s) && !datetime) return { ok: false };
    if (!isRealCalendarDay(s)) return { ok: false };
    // A Date keeps milliseconds: `.1234` would silently lose its last digit.
    if (datetime?.[1] && /[^0]/.test(datetime[1].slice(3)))
      return { ok: false, reason: `has more precision than milliseconds (${describe(raw)}); a Date keeps 3 fractional digits` };
    if (ISO_DATE.test(s)) {
      const [year, month, day] = s.split('-').map(Number) as [number, number, number];
      d = utcDay(year, month - 1, day);
    } else d = new Date(s);
  } else return { ok: false };
  if (Number.isNaN(d.getTime())) return { ok: false };
  const year = d.getUTCFullYear();
  if (year < FIRST_YEAR || year > LAST_YEAR) return { ok: false, reason: `must be between the years ${FIRST_YEAR} and ${LAST_YEAR}, got ${describe(raw)}` };
  return { ok: true, value: d };
}

/** Coerces a value of a scalar kind (everything except valueObject, hasOne, hasMany, list). */
export function coerceScalar(kind: FieldKind, raw: unknown, limits: Limits): ScalarResult {
  switch (kind) {
    case 'string':
    case 'text':
      return coerceString(raw, limits);
    case 'integer':
      return numberResult(exactInteger(raw), limits);
    case 'float':
      return numberResult(exactFloat(raw), limits);
    case 'decimal':
      // A precision without a scale is numeric(p, 0) in SQL: whole numbers.
      return numberResult(exactDecimal(raw, limits.precision, limits.scale ?? (limits.precision === undefined ? undefined : 0)), limits);
    case 'boolean':
      if (typeof raw === 'boolean') return ok(raw);
      if (raw === 'true' || raw === 'false') return ok(raw === 'true');
      return bad(`must be a boolean, got ${describe(raw)}`);
    case 'date': {
      const d = parseDate(raw);
      if (!d.ok) return bad(d.reason ?? `must be a date (a Date or an ISO string like 2024-01-31), got ${describe(raw)}`);
      return ok(utcDay(d.value.getUTCFullYear(), d.value.getUTCMonth(), d.value.getUTCDate()));
    }
    case 'datetime': {
      const d = parseDate(raw);
      return d.ok ? ok(d.value) : bad(d.reason ?? `must be a date-time (a Date or an ISO-8601 string), got ${describe(raw)}`);
    }
    case 'identifier':
    case 'reference': {
      const s = typeof raw === 'string' ? raw : wholeNumberAsText(raw);
      if (s === undefined || s.trim() === '') return bad(`must be a non-empty string or a number (a whole one, at most 2^53 - 1), got ${describe(raw)}`);
      if (s.length > MAX_IDENTIFIER_LENGTH) return bad(`must be at most ${MAX_IDENTIFIER_LENGTH} characters long`);
      const unstorable = unstorableCharacter(s);
      return unstorable ? bad(unstorable) : ok(s);
    }
    case 'status': {
      if (typeof raw !== 'string') return bad(`must be one of ${limits.values?.join(', ')}, got ${describe(raw)}`);
      if (limits.values && !limits.values.includes(raw)) return bad(`must be one of ${limits.values.join(', ')}; got ${describe(raw)}`);
      return ok(raw);
    }
    case 'dict': {
      if (!isPlainObject(raw)) return bad(`must be a plain object, got ${describe(raw)}`);
      // A copy, so later changes to the caller's object do not leak into the element.
      const copy = copyJsonValue(raw);
      return copy.ok ? ok(copy.value) : { ok: false, reasons: [copy.reason], at: copy.at || undefined };
    }
    default:
      return bad(`is of kind ${kind}, which is not a scalar`);
  }
}
