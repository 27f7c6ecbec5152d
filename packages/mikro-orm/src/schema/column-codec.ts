/**
 * Converts one field's value between the element's plain form (`toPlain`/`fromPlain`: dates as
 * ISO strings, `date` as `YYYY-MM-DD`, nested objects plain) and what node-postgres sends and
 * returns. Decoders accept both the text form of a column (`2024-05-01 10:00:00.5+00`, `"12.50"`)
 * and its JSON form (child rows arrive through `json_agg`), so one codec serves both paths.
 */
import type { FieldDefinition } from '@protean-ts/core';

export interface ColumnCodec {
  /** Plain value → bound parameter. */
  encode(value: unknown): unknown;
  /** Column value (text or JSON form) → plain value. */
  decode(raw: unknown): unknown;
}

const PG_OFFSET = /[+-]\d\d$/;

/** PostgreSQL prints `2024-05-01 10:00:00.5+00`; JSON prints `2024-05-01T10:00:00.5+00:00`. */
export function timestampToIso(raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date) return raw.toISOString();
  let text = String(raw).replace(' ', 'T');
  if (PG_OFFSET.test(text)) text += ':00';
  return new Date(text).toISOString();
}

const passThrough: ColumnCodec = {
  encode: (value) => value ?? null,
  decode: (raw) => raw ?? null,
};

/**
 * bigint and numeric arrive as text (they may exceed a double). Text that is exactly a number
 * becomes that number; any other (`12.50` from numeric(p, 2), a bigint past 2^53 written by
 * another program) stays text, so the field's own validation in fromPlain reads it exactly or
 * refuses it naming the field, instead of this codec rounding it silently.
 */
function decodeNumeric(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'string') return raw;
  const n = Number(raw);
  return String(n) === raw ? n : raw;
}

const numeric: ColumnCodec = {
  encode: (value) => value ?? null,
  decode: decodeNumeric,
};

const timestamp: ColumnCodec = {
  encode: (value) => value ?? null,
  decode: timestampToIso,
};

const calendarDate: ColumnCodec = {
  encode: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : (value ?? null)),
  decode: (raw) => (raw === null || raw === undefined ? null : String(raw).slice(0, 10)),
};

// node-postgres would turn a JS array into a PostgreSQL array literal, so jsonb goes as JSON text.
const json: ColumnCodec = {
  encode: (value) => (value === null || value === undefined ? null : JSON.stringify(value)),
  decode: (raw) => raw ?? null,
};

export function codecFor(field: FieldDefinition): ColumnCodec {
  switch (field.kind) {
    case 'integer':
    case 'float':
    case 'decimal':
      return numeric;
    case 'datetime':
      return timestamp;
    case 'date':
      return calendarDate;
    case 'list':
    case 'dict':
      return json;
    default:
      return passThrough;
  }
}
