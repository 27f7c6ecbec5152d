/**
 * Numbers a field may hold exactly. A JavaScript number is a double: integers past 2^53, a
 * string with more digits than 17, `1e400` or `1e-400` cannot be held and would silently become
 * another value. Numeric input is compared digit for digit with the number it becomes, and
 * refused (with the value it would have become) when the two differ.
 */

/** Value = (negative ? -1 : 1) × digits × 10^exponent; normalized: no trailing zeros in digits, zero is +0e0. */
interface Decimal {
  readonly negative: boolean;
  readonly digits: bigint;
  readonly exponent: number;
}

export type NumberResult = { ok: true; value: number } | { ok: false; reason: string };

/** Longer numeric strings are refused before parsing, so a megabyte of digits costs nothing. */
export const MAX_NUMERIC_STRING_LENGTH = 1024;

const DECIMAL_TEXT = /^([+-]?)(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const INTEGER_TEXT = /^[+-]?\d+$/;

function normalize(negative: boolean, digits: bigint, exponent: number): Decimal {
  if (digits === 0n) return { negative: false, digits: 0n, exponent: 0 };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent += 1;
  }
  return { negative, digits, exponent };
}

function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const [, sign, whole = '', fraction = '', exp = '0'] = m;
  const exponent = Number(exp) - fraction.length;
  if (!Number.isSafeInteger(exponent)) return undefined;
  return normalize(sign === '-', BigInt(`${whole}${fraction}` || '0'), exponent);
}

const sameDecimal = (a: Decimal, b: Decimal): boolean => a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;

/** Rounds half away from zero to `scale` digits after the point, as PostgreSQL's numeric(p, s) does. */
function roundToScale(d: Decimal, scale: number): Decimal {
  if (d.exponent >= -scale) return d;
  const drop = -scale - d.exponent;
  const length = d.digits.toString().length;
  // Dropping more digits than there are leaves less than half a unit: zero (and 10^drop is never built).
  if (drop > length) return normalize(false, 0n, 0);
  const unit = 10n ** BigInt(drop);
  let kept = d.digits / unit;
  if ((d.digits % unit) * 2n >= unit) kept += 1n;
  return normalize(d.negative, kept, -scale);
}

/** Digits before the decimal point (0 for |value| < 1). */
function integerDigits(d: Decimal): number {
  return d.digits === 0n ? 0 : Math.max(0, d.digits.toString().length + d.exponent);
}

function toNumber(d: Decimal): number {
  const n = Number(`${d.negative ? '-' : ''}${d.digits}e${d.exponent}`);
  // -0 cannot survive JSON or PostgreSQL (both write it as 0), so a field holds 0.
  return n === 0 ? 0 : n;
}

/** The decimal a number is written as (its shortest round-trip form, `0.1` for 0.1). */
const decimalOf = (n: number): Decimal => parseDecimal(String(n))!;

function shown(raw: unknown): string {
  const text = typeof raw === 'bigint' ? `${raw}` : String(raw);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function readDecimal(raw: unknown, what: string): Decimal | string {
  if (typeof raw === 'number') {
    if (Number.isNaN(raw)) return `must be ${what}, got NaN`;
    if (!Number.isFinite(raw)) return `must be a number (a finite one), got ${raw}`;
    return decimalOf(raw);
  }
  if (typeof raw === 'bigint') return normalize(raw < 0n, raw < 0n ? -raw : raw, 0);
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text.length > MAX_NUMERIC_STRING_LENGTH) return `must be ${what}; got a string of ${text.length} characters`;
    const d = parseDecimal(text);
    if (d) return d;
  }
  return '';
}

/** `d` as a number, or the reason it cannot be one exactly. */
function exactly(d: Decimal, raw: unknown): NumberResult {
  const n = toNumber(d);
  if (!Number.isFinite(n)) return { ok: false, reason: `is out of range: ${shown(raw)} is beyond the largest number (about 1.8e308)` };
  if (!sameDecimal(decimalOf(n), d)) {
    return {
      ok: false,
      reason: `cannot be held exactly: ${shown(raw)} would become ${n} (a number keeps about 15 to 17 significant digits); send at most that many`,
    };
  }
  return { ok: true, value: n };
}

/** A safe integer (|n| <= 2^53 - 1): every one of them is stored exactly in JSON and in a bigint column. */
export function exactInteger(raw: unknown): NumberResult {
  let value: number | undefined;
  if (typeof raw === 'number' && Number.isInteger(raw)) value = raw;
  else if (typeof raw === 'bigint') value = Number(raw);
  else if (typeof raw === 'string' && raw.trim().length <= MAX_NUMERIC_STRING_LENGTH && INTEGER_TEXT.test(raw.trim())) {
    const big = BigInt(raw.trim());
    value = big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER) ? Infinity : Number(big);
  }
  if (value === undefined) return { ok: false, reason: `must be an integer, got ${describeNumberInput(raw)}` };
  if (!Number.isSafeInteger(value) || (typeof raw === 'bigint' && BigInt(value) !== raw)) {
    return {
      ok: false,
      reason: `must be a safe integer (between -9007199254740991 and 9007199254740991), got ${shown(raw)}; larger integers cannot be held exactly (use a string or decimal field)`,
    };
  }
  return { ok: true, value: value === 0 ? 0 : value };
}

/**
 * The fast path, taken by nearly every value: a number, or a string that is exactly how its
 * number is written (`12.5`, also `12.50` as PostgreSQL prints numeric(p, 2)). Returns the
 * number and how many digits it has after the point, or undefined to take the exact path.
 */
function plainNumber(raw: unknown): { value: number; decimals: number } | undefined {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return undefined;
    text = String(raw);
  } else if (typeof raw === 'string' && raw.length <= 32) {
    text = raw.includes('.') && !/[eE]/.test(raw) ? raw.replace(/\.?0+$/, '') : raw;
    const n = Number(text);
    if (!Number.isFinite(n) || String(n) !== text) return undefined;
  } else return undefined;
  if (text.includes('e')) return undefined;
  const point = text.indexOf('.');
  const value = Number(text);
  return { value: value === 0 ? 0 : value, decimals: point < 0 ? 0 : text.length - point - 1 };
}

/** A finite double that is exactly the number given (a numeric string must not have more digits than a double keeps). */
export function exactFloat(raw: unknown): NumberResult {
  const plain = plainNumber(raw);
  if (plain) return { ok: true, value: plain.value };
  const d = readDecimal(raw, 'a number');
  if (typeof d === 'string') return { ok: false, reason: d || `must be a number, got ${describeNumberInput(raw)}` };
  return exactly(d, raw);
}

/**
 * A decimal rounded to `scale` digits (half away from zero, like numeric(p, s)) that a number
 * holds exactly, with at most `precision - scale` digits before the point.
 */
export function exactDecimal(raw: unknown, precision: number | undefined, scale: number | undefined): NumberResult {
  const plain = plainNumber(raw);
  // Already within the scale and far from the precision limit: nothing to round, nothing to count.
  if (
    plain &&
    (scale === undefined || plain.decimals <= scale) &&
    (precision === undefined || Math.abs(plain.value) < 10 ** Math.min(15, precision - (scale ?? 0)))
  ) {
    return { ok: true, value: plain.value };
  }
  const d = readDecimal(raw, 'a number');
  if (typeof d === 'string') return { ok: false, reason: d || `must be a number, got ${describeNumberInput(raw)}` };
  const rounded = scale === undefined ? d : roundToScale(d, scale);
  if (precision !== undefined) {
    const allowed = precision - (scale ?? 0);
    const digits = integerDigits(rounded);
    if (digits > allowed) return { ok: false, reason: `must have at most ${allowed} digits before the decimal point` };
  }
  return exactly(rounded, raw);
}

function describeNumberInput(raw: unknown): string {
  if (raw === null) return 'null';
  if (typeof raw === 'string') return `"${shown(raw)}"`;
  if (Array.isArray(raw)) return 'an array';
  if (typeof raw === 'object') return 'an object';
  return `${typeof raw} ${shown(raw)}`;
}
