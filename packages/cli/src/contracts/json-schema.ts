/**
 * JSON Schema (draft 2020-12) of a message from its field contracts. The schema describes what
 * the domain writes and what `fromPlain` accepts when a message arrives: missing values are
 * null, unknown properties are ignored (so they are allowed), and each kind's limits are the
 * ones the field validation enforces. The runtime also accepts a few obvious coercions (numeric
 * strings for numbers, numbers for strings); the schema keeps to the canonical form.
 */
import type { FieldContract } from './field-contract.js';

export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Identifiers and references are kept in varchar(255) (core's coerce-scalar.ts). */
const MAX_IDENTIFIER_LENGTH = 255;
/** A non-blank string: the runtime refuses an identifier that is only whitespace. */
const NOT_BLANK = '\\S';
/** Years 0001 to 9999, as the runtime keeps them; a canonical ISO form. */
const DATE_PATTERN = '^(?!0000)\\d{4}-\\d{2}-\\d{2}$';
const DATE_TIME_PATTERN = '^(?!0000)\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?(Z|[+-]\\d{2}:\\d{2})$';
const TEXT_KINDS = new Set(['string', 'text', 'identifier', 'status', 'reference']);

export interface MessageSchemaInput {
  /** `<Domain>.<Name>.v<N>`: the schema's title and the last part of its `$id`. */
  type: string;
  description?: string;
  fields: readonly FieldContract[];
}

export function messageJsonSchema(message: MessageSchemaInput): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `urn:protean-ts:message:${message.type}`,
    title: message.type,
    ...(message.description ? { description: message.description } : {}),
    ...objectSchema(message.fields),
  };
}

/** The schema of an object with these fields (a message, or a nested value object). */
export function objectSchema(fields: readonly FieldContract[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) properties[field.name] = fieldSchema(field);
  // A required field with a default is filled when absent, but a null in its place is refused.
  const required = fields.filter((field) => field.required && !field.hasDefault).map((field) => field.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

export function fieldSchema(field: FieldContract): JsonSchema {
  const value = { ...valueSchema(field), ...(field.description ? { description: field.description } : {}) };
  if (field.required) return value;
  // An optional field may be null (how a missing value is written), and '' counts as missing for text kinds.
  const missing: JsonSchema[] = [{ type: 'null' }];
  if (TEXT_KINDS.has(field.kind)) missing.push({ const: '' });
  return { anyOf: [value, ...missing] };
}

function valueSchema(field: FieldContract): JsonSchema {
  switch (field.kind) {
    case 'string':
    case 'text':
      return stringSchema(field);
    case 'integer':
      return numberSchema('integer', field, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    case 'float':
      return numberSchema('number', field);
    case 'decimal':
      return decimalSchema(field);
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date', pattern: DATE_PATTERN };
    case 'datetime':
      return { type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN };
    case 'identifier':
    case 'reference':
      return { type: 'string', minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH, pattern: NOT_BLANK };
    case 'status':
      return { type: 'string', enum: [...(field.values ?? [])] };
    case 'dict':
      return { type: 'object' };
    case 'list':
      return { type: 'array', items: listItemSchema(field) };
    case 'hasMany':
      return { type: 'array', items: nestedSchema(field), ...(field.required ? { minItems: 1 } : {}) };
    case 'valueObject':
    case 'hasOne':
      return nestedSchema(field);
  }
}

function stringSchema(field: FieldContract): JsonSchema {
  // '' is a missing value: a required text field needs at least one character.
  const minLength = Math.max(field.minLength ?? 0, field.required ? 1 : 0);
  const schema: JsonSchema = { type: 'string' };
  if (minLength > 0) schema.minLength = minLength;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.choices) schema.enum = [...field.choices];
  if (field.pattern !== undefined) schema.pattern = field.pattern;
  if (field.patternFlags) schema.$comment = `the runtime matches the pattern with the flags "${field.patternFlags}"`;
  return schema;
}

function numberSchema(type: 'integer' | 'number', field: FieldContract, lowest?: number, highest?: number): JsonSchema {
  const schema: JsonSchema = { type };
  const minimum = field.min ?? lowest;
  const maximum = field.max ?? highest;
  if (minimum !== undefined) schema.minimum = lowest === undefined ? minimum : Math.max(minimum, lowest);
  if (maximum !== undefined) schema.maximum = highest === undefined ? maximum : Math.min(maximum, highest);
  return schema;
}

/**
 * numeric(precision, scale): a value is rounded half away from zero to `scale` digits and may
 * then have at most precision - scale digits before the point, so it must stay below
 * 10^(precision - scale) - ½·10^-scale in size.
 */
function decimalSchema(field: FieldContract): JsonSchema {
  const schema = numberSchema('number', field);
  if (field.precision !== undefined && field.precision - (field.scale ?? 0) <= 15) {
    const scale = field.scale ?? 0;
    const limit = 10 ** (field.precision - scale) - 0.5 * 10 ** -scale;
    schema.exclusiveMaximum = limit;
    schema.exclusiveMinimum = -limit;
  }
  if (field.precision !== undefined) schema.$comment = `numeric(${field.precision}, ${field.scale ?? 0}): rounded to ${field.scale ?? 0} decimal places`;
  return schema;
}

function listItemSchema(field: FieldContract): JsonSchema {
  if (field.of === 'valueObject') return nestedSchema(field);
  // Items are never missing (null is refused), but '' is a string item like any other.
  return valueSchema({ name: `${field.name}[]`, kind: field.of as FieldContract['kind'], required: false, hasDefault: false });
}

function nestedSchema(field: FieldContract): JsonSchema {
  return { title: field.target, ...objectSchema(field.fields ?? []) };
}
