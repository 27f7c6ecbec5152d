/**
 * Resolves one field's value: defaults, `required`, scalar coercion and nested elements
 * (value objects, child entities, lists). Problems are collected into a FieldErrors map under
 * the field's path, so creation can report every bad field at once.
 */
import type { ClassRef, FieldDefinition, ListItemType } from './field-definition.js';
import { coerceScalar, type ScalarResult } from './coerce-scalar.js';
import { describe, isPlainObject } from './describe-value.js';
import { enterNesting, leaveNesting, TOO_DEEP } from './nesting-depth.js';
import { addFieldError, mergeFieldErrors, ValidationError, type FieldErrors } from '../errors/validation.error.js';

/** `create` validates input; `plain` rebuilds stored or received state (no autoNow over stored values). */
export type BuildMode = 'create' | 'plain';

export interface CoercionContext {
  readonly mode: BuildMode;
  /** True when filling a new object (or a key absent from stored state): defaults and autoNow apply. */
  readonly fillDefaults: boolean;
  /** Builds a nested element from a plain object; throws ValidationError when it is invalid. */
  build(target: ClassRef, plain: Record<string, unknown>, mode: BuildMode): unknown;
  /** The identity of an aggregate instance given to a reference field. */
  identityOf(value: object): string | undefined;
  /** False for an element made with `new` and never built by create/fromPlain (its fields were never validated). */
  isBuilt(element: object): boolean;
}

const STRINGY = new Set(['string', 'text', 'identifier', 'status', 'reference']);

export function isMissing(def: FieldDefinition, value: unknown): boolean {
  return value === undefined || value === null || (value === '' && STRINGY.has(def.kind));
}

function defaultOf(def: FieldDefinition): unknown {
  if (def.default !== undefined) return typeof def.default === 'function' ? (def.default as () => unknown)() : def.default;
  if (def.kind === 'datetime' && def.autoNow) return new Date();
  if (def.kind === 'hasMany') return [];
  return undefined;
}

function resolveTarget(def: FieldDefinition, path: string, errors: FieldErrors): ClassRef | undefined {
  const target = def.target?.();
  if (typeof target !== 'function') addFieldError(errors, path, `has no target class (did the lazy reference return undefined? check for an import cycle)`);
  return typeof target === 'function' ? target : undefined;
}

function coerceElement(target: ClassRef, raw: unknown, path: string, errors: FieldErrors, ctx: CoercionContext): unknown {
  if (raw instanceof target) {
    if (ctx.isBuilt(raw as object)) return raw;
    addFieldError(errors, path, `is a ${target.name} made with \`new\`, whose fields were never validated; build it with ${target.name}.create({...})`);
    return undefined;
  }
  if (!isPlainObject(raw)) {
    addFieldError(errors, path, `must be a ${target.name} or a plain object, got ${describe(raw)}`);
    return undefined;
  }
  try {
    return ctx.build(target, raw, ctx.mode);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    mergeFieldErrors(errors, error.errors, path);
    return undefined;
  }
}

function coerceListItem(of: ListItemType, raw: unknown, path: string, errors: FieldErrors, ctx: CoercionContext): unknown {
  if (raw === undefined || raw === null) {
    addFieldError(errors, path, 'must not be empty');
    return undefined;
  }
  if (typeof of === 'function') {
    const target = of();
    return coerceElement(target, raw, path, errors, ctx);
  }
  return scalarValue(coerceScalar(of, raw, {}), path, errors);
}

function scalarValue(result: ScalarResult, path: string, errors: FieldErrors): unknown {
  if (result.ok) return result.value;
  for (const reason of result.reasons) addFieldError(errors, result.at ? `${path}.${result.at}` : path, reason);
  return undefined;
}

function coerceList(def: FieldDefinition, raw: unknown, path: string, errors: FieldErrors, ctx: CoercionContext): unknown {
  if (!Array.isArray(raw)) {
    addFieldError(errors, path, `must be an array, got ${describe(raw)}`);
    return undefined;
  }
  // Object.keys counts the items that exist: a sparse array (even of length 1e9) is refused at once.
  if (Object.keys(raw).length < raw.length) {
    addFieldError(errors, path, 'is an array with holes (missing items); every item must be given');
    return undefined;
  }
  const target = def.kind === 'hasMany' ? resolveTarget(def, path, errors) : undefined;
  if (def.kind === 'hasMany' && !target) return undefined;
  if (!enterNesting()) {
    addFieldError(errors, path, TOO_DEEP);
    return undefined;
  }
  try {
    const items: unknown[] = [];
    for (let i = 0; i < raw.length; i++) {
      const at = `${path}.${i}`;
      items.push(target ? coerceElement(target, raw[i], at, errors, ctx) : coerceListItem(def.of!, raw[i], at, errors, ctx));
    }
    return Object.freeze(items);
  } finally {
    leaveNesting();
  }
}

function coercePresent(def: FieldDefinition, raw: unknown, path: string, errors: FieldErrors, ctx: CoercionContext): unknown {
  switch (def.kind) {
    case 'valueObject':
    case 'hasOne': {
      const target = resolveTarget(def, path, errors);
      return target && coerceElement(target, raw, path, errors, ctx);
    }
    case 'hasMany':
    case 'list':
      return coerceList(def, raw, path, errors, ctx);
    case 'reference': {
      if (typeof raw === 'object' && raw !== null) {
        const target = resolveTarget(def, path, errors);
        if (target && raw instanceof target) return ctx.identityOf(raw);
        addFieldError(errors, path, `must be the id of a ${target?.name ?? 'referenced aggregate'} (or the aggregate itself), got ${describe(raw)}`);
        return undefined;
      }
      break;
    }
    default:
      break;
  }
  return scalarValue(coerceScalar(def.kind, raw, def), path, errors);
}

/**
 * The value to store for `def` given `raw`, or undefined with reasons added to `errors`.
 * Missing values get the default when `ctx.fillDefaults`; a missing required value is a reason.
 */
export function resolveFieldValue(def: FieldDefinition, raw: unknown, path: string, errors: FieldErrors, ctx: CoercionContext): unknown {
  let value = raw;
  if (isMissing(def, value) && ctx.fillDefaults) {
    const fallback = defaultOf(def);
    if (fallback !== undefined) value = fallback;
  }
  if (isMissing(def, value)) {
    if (def.required) addFieldError(errors, path, 'is required');
    if (value === '' && (def.kind === 'string' || def.kind === 'text')) return '';
    return def.kind === 'hasMany' ? Object.freeze([]) : undefined;
  }
  const coerced = coercePresent(def, value, path, errors, ctx);
  if (def.kind === 'hasMany' && def.required && Array.isArray(coerced) && coerced.length === 0) {
    addFieldError(errors, path, 'needs at least one item');
  }
  return coerced;
}
