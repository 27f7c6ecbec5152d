/**
 * Value objects are defined by their values: no identity, equal when all fields are equal,
 * immutable after creation (a change is a new value object).
 */
import type { ClassRef } from '../fields/field-definition.js';
import { BaseDataElement } from './base-data-element.js';
import { plainEquals } from './element-plain.js';
import type { BuildMode } from '../fields/field-coercion.js';
import { AFTER_BUILD, installHooks } from './element-hooks.js';
import { checkInvariants } from './invariant.js';

export abstract class BaseValueObject extends BaseDataElement {
  equals(other: unknown): boolean {
    return other instanceof BaseValueObject && (other.constructor as ClassRef) === this.constructor && plainEquals(this.toPlain(), other.toPlain());
  }
}

installHooks(BaseValueObject.prototype, {
  [AFTER_BUILD](this: BaseValueObject, mode: BuildMode): void {
    // Value objects may declare post-invariants for rules across fields (e.g. min <= max).
    if (mode === 'create') checkInvariants(this, 'post');
  },
});
