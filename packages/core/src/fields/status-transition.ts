/**
 * Status fields with `transitions` only move along declared edges once an object exists.
 * A state that is not a key of `transitions` is terminal.
 */
import type { FieldDefinition } from './field-definition.js';

/** A reason when moving `def` from `from` to `to` is not allowed, else undefined. */
export function transitionProblem(def: FieldDefinition, from: unknown, to: unknown): string | undefined {
  if (def.kind !== 'status' || !def.transitions || from === to) return undefined;
  if (from === undefined || from === null) return undefined;
  if (to === undefined || to === null) return `cannot be cleared once set (it is ${String(from)})`;
  // Own keys only: a state named `constructor` or `toString` must not find Object.prototype's.
  const allowed = Object.hasOwn(def.transitions, String(from)) ? (def.transitions[String(from)] ?? []) : [];
  if (allowed.includes(String(to))) return undefined;
  const options = allowed.length ? `allowed from ${String(from)}: ${allowed.join(', ')}` : `${String(from)} is a final state`;
  return `cannot move from ${String(from)} to ${String(to)} (${options})`;
}
