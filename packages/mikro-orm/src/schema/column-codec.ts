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

const numeric: ColumnCodec = {
  encode: (value) => value ?? null,
  // bigint and numeric arrive as strings in text form (they may exceed a double); fields are numbers.
  decode: (raw) => (raw === null || raw === undefined ? null : typeof raw === 'number' ? raw : Number(raw)),
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
