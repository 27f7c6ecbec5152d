/**
 * Entities have identity and change over time. Every assignment is validated on the spot and
 * checked against the invariants of the entity and its aggregate; an entity inside an
 * aggregate raises events through its aggregate root.
 */
import 'reflect-metadata';
import type { FieldDefinition } from '../fields/field-definition.js';
import { HAS_IDENTITY } from '../fields/field-metadata.js';
import type { BuildMode } from '../fields/field-coercion.js';
import { RegistrationError } from '../errors/registration.error.js';
import { BaseDataElement } from './base-data-element.js';
import { identityValue } from './element-builder.js';
import { ASSIGN, AFTER_BUILD, installHooks } from './element-hooks.js';
import { assignEntityField, atomicChange, rootOf } from './entity-change.js';
import { checkInvariants } from './invariant.js';
import { assertChangeThroughApply } from './event-sourced-change.js';
import type { BaseEvent } from './base-event.js';

export abstract class BaseEntity extends BaseDataElement {
  /**
   * The identity: the implicit `id`, or the value of the field declared with `identifier: true`.
   * Declared as a property (the getter is installed below) so a subclass may declare its own
   * `@field.string({ identifier: true }) override id!: string`.
   */
  declare readonly id: string;

  /** Same class and same identity. */
  equals(other: unknown): boolean {
    return other instanceof BaseEntity && other.constructor === this.constructor && this.id !== undefined && other.id === this.id;
  }

  /**
   * Applies several assignments as one change: invariants are checked once at the end, and if
   * the block (or a check) throws, every field and pending event is restored.
   */
  atomicChange<R>(change: () => R): R {
    return atomicChange(this, change);
  }

  /** Raises `event` on the aggregate this entity belongs to. */
  raise<E extends BaseEvent>(event: E): E {
    const root = rootOf(this);
    if (root === this || !(root instanceof BaseEntity)) {
      throw new RegistrationError(
        `${this.constructor.name} is not inside an aggregate, so it cannot raise ${event?.constructor?.name}; add it to an aggregate first`,
      );
    }
    return root.raise(event);
  }
}

installHooks(BaseEntity.prototype, {
  [ASSIGN](this: BaseEntity, definition: FieldDefinition, value: unknown): void {
    assertChangeThroughApply(this, definition.name);
    assignEntityField(this, definition, value);
  },
  [AFTER_BUILD](this: BaseEntity, mode: BuildMode): void {
    // Stored state was valid when saved; re-checking invariants on load would lock out fixing it.
    if (mode === 'create') checkInvariants(this, 'post');
  },
});

Reflect.defineMetadata(HAS_IDENTITY, true, BaseEntity);
Object.defineProperty(BaseEntity.prototype, 'id', {
  configurable: true,
  enumerable: false,
  get(this: BaseEntity) {
    return identityValue(this);
  },
});
