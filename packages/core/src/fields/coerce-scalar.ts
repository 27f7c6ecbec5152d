/**
 * Turns one raw scalar into a field's value or a list of reasons. Coercion is limited to the
 * obvious (numeric strings for numbers, ISO strings for dates, numbers for ids); anything else
 * is a reason, never a guess.
 */
import type { FieldDefinition, FieldKind } from './field-definition.js';

export type ScalarResult = { ok: true; value: unknown } | { ok: false; reasons: string[] };

const ok = (value: unknown): ScalarResult => ({ ok: true, value });
const bad = (...reasons: string[]): ScalarResult => ({ ok: false, reasons });

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

type Limits = Pick<FieldDefinition, 'min' | 'max' | 'minLength' | 'maxLength' | 'choices' | 'pattern' | 'precision' | 'scale' | 'values'>;

function toNumber(raw: unknown, integer: boolean): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string') {
    const s = raw.trim();
    if (integer ? INTEGER.test(s) : NUMBER.test(s)) return Number(s);
  }
  return undefined;
}

function checkBounds(n: number, limits: Limits, reasons: string[]): void {
  if (limits.min !== undefined && n < limits.min) reasons.push(`must be at least ${limits.min}`);
  if (limits.max !== undefined && n > limits.max) reasons.push(`must be at most ${limits.max}`);
}

function coerceString(raw: unknown, limits: Limits): ScalarResult {
  let s: string;
  if (typeof raw === 'string') s = raw;
  else if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint') s = String(raw);
  else return bad(`must be a string, got ${describe(raw)}`);
  const reasons: string[] = [];
  if (limits.minLength !== undefined && s.length < limits.minLength) reasons.push(`must be at least ${limits.minLength} characters long`);
  if (limits.maxLength !== undefined && s.length > limits.maxLength) reasons.push(`must be at most ${limits.maxLength} characters long`);
  if (limits.choices && !limits.choices.includes(s)) reasons.push(`must be one of ${limits.choices.join(', ')}; got "${s}"`);
  if (limits.pattern) {
    limits.pattern.lastIndex = 0;
    if (!limits.pattern.test(s)) reasons.push(`must match ${limits.pattern}`);
  }
  return reasons.length ? bad(...reasons) : ok(s);
}

function coerceDecimal(raw: unknown, limits: Limits): ScalarResult {
  let n = toNumber(raw, false);
  if (n === undefined) return bad(`must be a number, got ${describe(raw)}`);
  // Same rounding the database applies to numeric(p, s), so the object matches what is stored.
  if (limits.scale !== undefined) n = Number(n.toFixed(limits.scale));
  const reasons: string[] = [];
  checkBounds(n, limits, reasons);
  if (limits.precision !== undefined) {
    const intDigits = Math.trunc(Math.abs(n)).toString().length;
    const allowed = limits.precision - (limits.scale ?? 0);
    if (Math.trunc(Math.abs(n)) !== 0 && intDigits > allowed) reasons.push(`must have at most ${allowed} digits before the decimal point`);
  }
  return reasons.length ? bad(...reasons) : ok(n);
}

/** JavaScript rolls `2024-02-30` over to March 1st; a date that does not exist is invalid instead. */
function isRealCalendarDay(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

function parseDate(raw: unknown): Date | undefined {
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? undefined : new Date(raw.getTime());
  if (typeof raw === 'string') {
    const s = raw.trim();
    if (!ISO_DATE.test(s) && !ISO_DATETIME.test(s)) return undefined;
    if (!isRealCalendarDay(s)) return undefined;
    const d = new Date(ISO_DATE.test(s) ? `${s}T00:00:00.000Z` : s);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

export function describe(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'an array';
  if (raw instanceof Date) return 'a Date';
  if (typeof raw === 'string') return `"${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}"`;
  if (typeof raw === 'object') return `an object (${(raw as object).constructor?.name ?? 'Object'})`;
  return `${typeof raw} ${String(raw)}`;
}

export function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null) return false;
  const proto = Object.getPrototypeOf(raw);
  return proto === Object.prototype || proto === null;
}

/** Coerces a value of a scalar kind (everything except valueObject, hasOne, hasMany, list). */
export function coerceScalar(kind: FieldKind, raw: unknown, limits: Limits): ScalarResult {
  switch (kind) {
    case 'string':
    case 'text':
      return coerceString(raw, limits);
    case 'integer': {
      const n = toNumber(raw, true);
      if (n === undefined || !Number.isInteger(n)) return bad(`must be an integer, got ${describe(raw)}`);
      const reasons: string[] = [];
      checkBounds(n, limits, reasons);
      return reasons.length ? bad(...reasons) : ok(n);
    }
    case 'float': {
      const n = toNumber(raw, false);
      if (n === undefined) return bad(`must be a number, got ${describe(raw)}`);
      const reasons: string[] = [];
      checkBounds(n, limits, reasons);
      return reasons.length ? bad(...reasons) : ok(n);
    }
    case 'decimal':
      return coerceDecimal(raw, limits);
    case 'boolean':
      if (typeof raw === 'boolean') return ok(raw);
      if (raw === 'true' || raw === 'false') return ok(raw === 'true');
      return bad(`must be a boolean, got ${describe(raw)}`);
    case 'date': {
      const d = parseDate(raw);
      if (!d) return bad(`must be a date (a Date or an ISO string like 2024-01-31), got ${describe(raw)}`);
      return ok(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())));
    }
    case 'datetime': {
      const d = parseDate(raw);
      return d ? ok(d) : bad(`must be a date-time (a Date or an ISO-8601 string), got ${describe(raw)}`);
    }
    case 'identifier':
    case 'reference': {
      if (typeof raw === 'string' && raw.trim() !== '') return ok(raw);
      if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint') return ok(String(raw));
      return bad(`must be a non-empty string or a number, got ${describe(raw)}`);
    }
    case 'status': {
      if (typeof raw !== 'string') return bad(`must be one of ${limits.values?.join(', ')}, got ${describe(raw)}`);
      if (limits.values && !limits.values.includes(raw)) return bad(`must be one of ${limits.values.join(', ')}; got "${raw}"`);
      return ok(raw);
    }
    case 'dict': {
      if (!isPlainObject(raw)) return bad(`must be a plain object, got ${describe(raw)}`);
      try {
        // A copy, so later changes to the caller's object do not leak into the element.
        return ok(JSON.parse(JSON.stringify(raw)));
      } catch (error) {
        return bad(`must be JSON-serializable: ${(error as Error).message}`);
      }
    }
    default:
      return bad(`is of kind ${kind}, which is not a scalar`);
  }
}
