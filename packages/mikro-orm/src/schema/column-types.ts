/**
 * The PostgreSQL column type of each scalar field kind. Value objects, hasOne and hasMany have no
 * column of their own (they are flattened or become child tables), so they are not listed here.
 */
import type { FieldDefinition, FieldKind } from '@protean-ts/core';
import { MappingError } from '../mapping.error.js';

/** Kinds stored in exactly one column. */
export type ScalarKind = Exclude<FieldKind, 'valueObject' | 'hasOne' | 'hasMany'>;

const DEFAULT_STRING_LENGTH = 255;
/** Status columns are sized for their longest value, never below this. */
const MIN_STATUS_LENGTH = 50;

export function isScalarKind(kind: FieldKind): kind is ScalarKind {
  return kind !== 'valueObject' && kind !== 'hasOne' && kind !== 'hasMany';
}

/** `varchar(50)`, `numeric(10,2)`, `jsonb`, … for one field. */
export function columnTypeOf(field: FieldDefinition, owner: string): string {
  switch (field.kind) {
    case 'string':
      return `varchar(${field.maxLength ?? DEFAULT_STRING_LENGTH})`;
    case 'text':
      return 'text';
    // bigint, not integer: JS numbers hold integers far past 2^31 and a silent overflow at
    // INSERT time would be a worse surprise than 4 extra bytes per row.
    case 'integer':
      return 'bigint';
    case 'float':
      return 'double precision';
    case 'decimal':
      if (field.precision === undefined) return 'numeric';
      return `numeric(${field.precision},${field.scale ?? 0})`;
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
      return 'timestamptz';
    case 'identifier':
    case 'reference':
      return `varchar(${DEFAULT_STRING_LENGTH})`;
    case 'status': {
      const longest = Math.max(MIN_STATUS_LENGTH, ...(field.values ?? []).map((v) => v.length));
      return `varchar(${longest})`;
    }
    case 'list':
    case 'dict':
      return 'jsonb';
    default:
      throw new MappingError(`${owner}.${field.name} has kind '${field.kind}', which has no single column; this is a bug in the table model.`);
  }
}
