/**
 * Symbol-named hooks each element base overrides: what an assignment does after creation
 * (validate, or refuse for immutable elements) and what runs once an object is built.
 * They are installed on the prototypes outside the class bodies, so they never appear in the
 * public class types (a unique-symbol member there breaks declaration emit in user code).
 */
import type { FieldDefinition } from '../fields/field-definition.js';
import type { BuildMode } from '../fields/field-coercion.js';
import type { MessageMetadata } from '../messages/envelope.js';

export const ASSIGN: unique symbol = Symbol('protean:assign');
export const AFTER_BUILD: unique symbol = Symbol('protean:afterBuild');

export interface FromPlainOptions {
  /** Aggregates: the stored version (default: the plain object's `_version`, else -1). */
  version?: number;
  /** Messages: the metadata received with the data. */
  metadata?: MessageMetadata;
}

export interface ElementHooks {
  [ASSIGN](definition: FieldDefinition, value: unknown): void;
  [AFTER_BUILD](mode: BuildMode, options: FromPlainOptions): void;
}

/** Installs hooks (non-enumerable) on an element base's prototype. */
export function installHooks(prototype: object, hooks: Partial<ElementHooks>): void {
  for (const key of Object.getOwnPropertySymbols(hooks)) {
    Object.defineProperty(prototype, key, { value: (hooks as Record<symbol, unknown>)[key], writable: true, configurable: true, enumerable: false });
  }
}

/** Calls a hook on an element (found through its prototype chain). */
export function callHook<K extends keyof ElementHooks>(element: object, hook: K, ...args: Parameters<ElementHooks[K]>): void {
  const fn = (element as Partial<ElementHooks>)[hook] as ((...a: unknown[]) => void) | undefined;
  if (typeof fn !== 'function') throw new TypeError(`${element.constructor.name} is not a protean-ts element`);
  fn.apply(element, args);
}
