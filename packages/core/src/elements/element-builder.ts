/**
 * Builds elements from input: `create` validates every field at once (defaults, identity,
 * coercion, nested elements) and reports all problems in one ValidationError; `fromPlain`
 * rebuilds stored or received state without overwriting it with defaults or autoNow.
 */
import { randomUUID } from 'node:crypto';
import type { ClassRef, FieldDefinition } from '../fields/field-definition.js';
import { fieldMapOf, identityFieldOf } from '../fields/field-metadata.js';
import { isFieldHost } from '../fields/field-host.js';
import { isMissing, resolveFieldValue, type BuildMode, type CoercionContext } from '../fields/field-coercion.js';
import { isPlainObject } from '../fields/describe-value.js';
import { enterNesting, leaveNesting, TOO_DEEP } from '../fields/nesting-depth.js';
import { refuseShadowedFields } from '../fields/decorator-settings.js';
import { addFieldError, ValidationError, type FieldErrors } from '../errors/validation.error.js';
import { RegistrationError } from '../errors/registration.error.js';
import { hostOf } from './element-host.js';
import { AFTER_BUILD, callHook, type FromPlainOptions } from './element-hooks.js';
import { hasState, stateOf } from './element-state.js';

export type ElementConstructor<T> = new () => T;

export function newIdentity(cls: ClassRef): string {
  return hostOf(cls)?.newIdentity() ?? randomUUID();
}

/** The identity value of an aggregate or entity instance. */
export function identityValue(element: object): string | undefined {
  const def = identityFieldOf(element.constructor as ClassRef);
  const value = def ? stateOf(element).values[def.name] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

function buildNested(target: ClassRef, plain: Record<string, unknown>, mode: BuildMode): unknown {
  if (!isFieldHost(target.prototype)) {
    throw new RegistrationError(`${target.name} is used as a nested element but is not a protean-ts element; extend BaseValueObject or BaseEntity`);
  }
  return buildElement(target as ElementConstructor<object>, plain, mode);
}

function identityOf(value: object): string | undefined {
  return hasState(value) ? identityValue(value) : undefined;
}

function isBuilt(element: object): boolean {
  return hasState(element) && stateOf(element).ready;
}

// Shared, so building an element allocates no closures (this is the hot path of every load).
const CONTEXTS = {
  create: { mode: 'create', fillDefaults: true, build: buildNested, identityOf, isBuilt },
  plain: { mode: 'plain', fillDefaults: false, build: buildNested, identityOf, isBuilt },
  plainAbsent: { mode: 'plain', fillDefaults: true, build: buildNested, identityOf, isBuilt },
  assign: { mode: 'create', fillDefaults: false, build: buildNested, identityOf, isBuilt },
} as const satisfies Record<string, CoercionContext>;

/** The context for validating an assignment to an existing object (no defaults). */
export const ASSIGN_CONTEXT: CoercionContext = CONTEXTS.assign;

/** Points child entities (hasOne/hasMany values) at their owner, so they find their aggregate. */
export function attachChildren(owner: object, definition: FieldDefinition, value: unknown): void {
  if (definition.kind !== 'hasOne' && definition.kind !== 'hasMany') return;
  const children = Array.isArray(value) ? value : value ? [value] : [];
  for (const child of children) if (hasState(child)) stateOf(child).owner = owner;
}

export function buildElement<T extends object>(cls: ElementConstructor<T>, input: unknown, mode: BuildMode, options: FromPlainOptions = {}): T {
  if (!isPlainObject(input)) {
    throw new ValidationError({ '': [`${cls.name} must be built from a plain object, got ${input === null ? 'null' : typeof input}`] }, cls.name);
  }
  if (!enterNesting()) throw new ValidationError({ '': [TOO_DEEP] }, cls.name);
  try {
    return buildValidElement(cls, input, mode, options);
  } finally {
    leaveNesting();
  }
}

function buildValidElement<T extends object>(cls: ElementConstructor<T>, input: Record<string, unknown>, mode: BuildMode, options: FromPlainOptions): T {
  const obj = new cls();
  refuseShadowedFields(cls, obj);
  const state = stateOf(obj);
  const fields = fieldMapOf(cls);
  const errors: FieldErrors = {};
  if (mode === 'create') {
    for (const key of Object.keys(input)) {
      if (!fields.has(key) && input[key] !== undefined) addFieldError(errors, key, `is not a field of ${cls.name}`);
    }
  }
  // Values assigned by class-field initializers during construction act as defaults.
  const preset = state.values;
  state.values = Object.create(null) as Record<string, unknown>;
  for (const def of fields.values()) {
    const present = Object.hasOwn(input, def.name) && input[def.name] !== undefined;
    let raw = present ? input[def.name] : preset[def.name];
    if (def.identifier && present && raw === '') {
      addFieldError(errors, def.name, 'must be a non-empty string or a number (leave the identity out to have one generated), got ""');
      continue;
    }
    if (def.identifier && isMissing(def, raw)) {
      if (mode === 'create' && def.kind === 'identifier') raw = newIdentity(cls);
      else if (mode === 'plain') addFieldError(errors, def.name, 'is required (identity)');
    }
    const ctx = mode === 'create' ? CONTEXTS.create : present ? CONTEXTS.plain : CONTEXTS.plainAbsent;
    const value = resolveFieldValue(def, raw, def.name, errors, ctx);
    state.values[def.name] = value;
  }
  if (Object.keys(errors).length) throw new ValidationError(errors, cls.name);
  for (const def of fields.values()) attachChildren(obj, def, state.values[def.name]);
  const version = options.version ?? (typeof input._version === 'number' ? input._version : undefined);
  callHook(obj, AFTER_BUILD, mode, { ...options, version });
  state.ready = true;
  return obj;
}
