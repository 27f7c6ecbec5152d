/**
 * The common base of every element that holds fields (aggregates, entities, value objects,
 * events, commands): state behind the field accessors, typed `create`, `fromPlain`/`toPlain`.
 * By default elements are immutable after creation; BaseEntity makes them mutable with checks.
 */
import type { FieldDefinition } from '../fields/field-definition.js';
import { fieldMapOf } from '../fields/field-metadata.js';
import { FIELD_READ, FIELD_WRITE, type FieldHost } from '../fields/field-host.js';
import type { BuildMode } from '../fields/field-coercion.js';
import { ImmutableElementError } from '../errors/immutable-element.error.js';
import { buildElement, type ElementConstructor } from './element-builder.js';
import { ASSIGN, AFTER_BUILD, type ElementHooks, type FromPlainOptions } from './element-hooks.js';
import { newState, STATE, type ElementState } from './element-state.js';
import { toPlainValues } from './element-plain.js';
import type { CreateArgs } from './create-props.js';

export abstract class BaseDataElement implements FieldHost, ElementHooks {
  declare readonly [STATE]: ElementState;

  constructor() {
    Object.defineProperty(this, STATE, { value: newState(), enumerable: false, writable: false, configurable: false });
  }

  /** Builds a valid instance; every invalid field is reported in one ValidationError. */
  static create<T extends BaseDataElement>(this: ElementConstructor<T>, ...args: CreateArgs<T>): T {
    return buildElement(this, args[0] ?? {}, 'create');
  }

  /** Rebuilds an instance from its plain form (stored state, a received message) without re-running defaults over it. */
  static fromPlain<T extends BaseDataElement>(this: ElementConstructor<T>, plain: Record<string, unknown>, options?: FromPlainOptions): T {
    return buildElement(this, plain, 'plain', options);
  }

  /** Field values as a plain object: nested elements as plain objects, dates as ISO strings. */
  toPlain(): Record<string, unknown> {
    return toPlainValues(this);
  }

  toJSON(): Record<string, unknown> {
    return this.toPlain();
  }

  abstract equals(other: unknown): boolean;

  [FIELD_READ](name: string): unknown {
    return this[STATE].values[name];
  }

  [FIELD_WRITE](name: string, value: unknown): void {
    const state = this[STATE];
    // Class-field initializers run inside the constructor; the builder validates what they set.
    if (!state.ready) {
      state.values[name] = value;
      return;
    }
    const def = fieldMapOf(this.constructor as ElementConstructor<this>).get(name);
    if (!def) throw new TypeError(`${this.constructor.name}.${name} is not a field`);
    this[ASSIGN](def, value);
  }

  [ASSIGN](definition: FieldDefinition, _value: unknown): void {
    throw new ImmutableElementError(this.constructor.name, definition.name);
  }

  [AFTER_BUILD](_mode: BuildMode, _options: FromPlainOptions): void {}
}
