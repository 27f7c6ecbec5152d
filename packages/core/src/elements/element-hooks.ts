/**
 * Symbol-named hooks each element base overrides: what an assignment does after creation
 * (validate, or refuse for immutable elements) and what runs once an object is built.
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
