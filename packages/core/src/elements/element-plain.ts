/**
 * The plain (JSON-ready) form of an element: field values with nested value objects and
 * entities as plain objects, dates as ISO strings (`date` fields as `YYYY-MM-DD`), missing
 * values as null. `fromPlain` accepts exactly this shape.
 */
import type { ClassRef, FieldDefinition, FieldKind } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import { hasState, stateOf } from './element-state.js';

function plainValue(kind: FieldKind | string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (Array.isArray(value)) return value.map((item) => plainValue(kind, item));
  if (hasState(value)) return toPlainValues(value);
  if (kind === 'dict') return JSON.parse(JSON.stringify(value));
  return value;
}

function itemKind(def: FieldDefinition): FieldKind | string {
  return def.kind === 'list' && typeof def.of === 'string' ? def.of : def.kind;
}

export function toPlainValues(element: object): Record<string, unknown> {
  const values = stateOf(element).values;
  const plain: Record<string, unknown> = {};
  for (const def of fieldsOf(element.constructor as ClassRef)) plain[def.name] = plainValue(itemKind(def), values[def.name]);
  return plain;
}

/** Structural equality of two plain forms (key order independent). */
export function plainEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && plainEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
