/**
 * How a mutable entity or aggregate changes: each assignment is validated, status transitions
 * are enforced, pre-invariants run before and post-invariants after (on the entity and every
 * entity above it), and a failed change leaves the old state. `atomicChange` defers the checks
 * to the end of a block and restores the whole aggregate if anything in it throws.
 */
import type { ClassRef, FieldDefinition } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import { resolveFieldValue } from '../fields/field-coercion.js';
import { transitionProblem } from '../fields/status-transition.js';
import { addFieldError, ValidationError, type FieldErrors } from '../errors/validation.error.js';
import { ASSIGN_CONTEXT, attachChildren } from './element-builder.js';
import { hasState, stateOf } from './element-state.js';
import { checkInvariants } from './invariant.js';

/** The entity itself, then its owner, up to the aggregate root. */
export function lineageOf(element: object): object[] {
  const line: object[] = [element];
  for (let owner = stateOf(element).owner; owner && !line.includes(owner); owner = stateOf(owner).owner) line.push(owner);
  return line;
}

export function rootOf(element: object): object {
  return lineageOf(element).at(-1)!;
}

/** The root and every entity reachable from it through hasOne/hasMany fields. */
export function subtreeOf(root: object): object[] {
  const seen: object[] = [];
  const visit = (node: object): void => {
    if (seen.includes(node)) return;
    seen.push(node);
    const values = stateOf(node).values;
    for (const def of fieldsOf(node.constructor as ClassRef)) {
      if (def.kind !== 'hasOne' && def.kind !== 'hasMany') continue;
      const value = values[def.name];
      for (const child of Array.isArray(value) ? value : value ? [value] : []) if (hasState(child)) visit(child);
    }
  };
  visit(root);
  return seen;
}

function inAtomicChange(element: object): boolean {
  return stateOf(rootOf(element)).atomicDepth > 0;
}

export function assignEntityField(entity: object, def: FieldDefinition, raw: unknown): void {
  const name = (entity.constructor as ClassRef).name;
  const state = stateOf(entity);
  const old = state.values[def.name];
  const errors: FieldErrors = {};
  if (def.identifier && old !== undefined && old !== null && String(raw) !== String(old)) {
    addFieldError(errors, def.name, `cannot be changed once set (it is the identity of this ${name})`);
    throw new ValidationError(errors, name);
  }
  const value = resolveFieldValue(def, raw, def.name, errors, ASSIGN_CONTEXT);
  const problem = transitionProblem(def, old, value);
  if (problem) addFieldError(errors, def.name, problem);
  if (Object.keys(errors).length) throw new ValidationError(errors, name);

  if (inAtomicChange(entity)) {
    state.values[def.name] = value;
    attachChildren(entity, def, value);
    return;
  }
  const lineage = lineageOf(entity);
  for (const node of lineage) checkInvariants(node, 'pre');
  state.values[def.name] = value;
  attachChildren(entity, def, value);
  try {
    for (const node of lineage) checkInvariants(node, 'post');
  } catch (error) {
    state.values[def.name] = old;
    throw error;
  }
}

/**
 * Runs `change` with invariant checks deferred to its end. Pre-invariants run first; if the
 * block or a post-invariant throws, every field of the aggregate (children included) and its
 * pending events are restored to what they were before the block.
 */
export function atomicChange<R>(element: object, change: () => R): R {
  const root = rootOf(element);
  const rootState = stateOf(root);
  if (rootState.atomicDepth > 0) return runSync(change);

  for (const node of subtreeOf(root)) checkInvariants(node, 'pre');
  const snapshot = subtreeOf(root).map(
    (node) => [stateOf(node), Object.assign(Object.create(null), stateOf(node).values) as Record<string, unknown>, stateOf(node).owner] as const,
  );
  const eventCount = rootState.events.length;
  rootState.atomicDepth += 1;
  try {
    const result = runSync(change);
    rootState.atomicDepth -= 1;
    for (const node of subtreeOf(root)) checkInvariants(node, 'post');
    return result;
  } catch (error) {
    if (rootState.atomicDepth > 0) rootState.atomicDepth -= 1;
    for (const [state, values, owner] of snapshot) {
      state.values = values;
      state.owner = owner;
    }
    rootState.events.length = eventCount;
    throw error;
  }
}

function runSync<R>(change: () => R): R {
  const result = change();
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    throw new TypeError('atomicChange takes a synchronous function: do the awaiting before or after the block, so the checks see one consistent change');
  }
  return result;
}
