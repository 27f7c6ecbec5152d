/**
 * The common base of every element that holds fields (aggregates, entities, value objects,
 * events, commands): state behind the field accessors, typed `create`, `fromPlain`/`toPlain`.
 * By default elements are immutable after creation; BaseEntity makes them mutable with checks.
 */
import type { FieldDefinition } from '../fields/field-definition.js';
import { fieldMapOf } from '../fields/field-metadata.js';
import { FIELD_READ, FIELD_WRITE } from '../fields/field-host.js';
import { ImmutableElementError } from '../errors/immutable-element.error.js';
import { buildElement, type ElementConstructor } from './element-builder.js';
import { ASSIGN, AFTER_BUILD, callHook, installHooks, type FromPlainOptions } from './element-hooks.js';
import { newState, STATE, stateOf, type ElementState } from './element-state.js';
import { toPlainValues } from './element-plain.js';
import type { CreateArgs, DataElementShape } from './create-props.js';

export abstract class BaseDataElement implements DataElementShape {
  constructor() {
    // A plain symbol-keyed property: symbols never show in Object.keys or JSON, and a plain
    // assignment is much cheaper than defineProperty on this hot path.
    (this as unknown as { [STATE]: ElementState })[STATE] = newState();
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
}

installHooks(BaseDataElement.prototype, {
  [ASSIGN](this: BaseDataElement, definition: FieldDefinition): void {
    throw new ImmutableElementError(this.constructor.name, definition.name);
  },
  [AFTER_BUILD](): void {},
});

// The field accessors' entry points (fields/field-host.ts).
Object.defineProperties(BaseDataElement.prototype, {
  [FIELD_READ]: {
    value(this: BaseDataElement, name: string): unknown {
      return stateOf(this).values[name];
    },
  },
  [FIELD_WRITE]: {
    value(this: BaseDataElement, name: string, value: unknown): void {
      const state = stateOf(this);
      // Class-field initializers run inside the constructor; the builder validates what they set.
      if (!state.ready) {
        state.values[name] = value;
        return;
      }
      const def = fieldMapOf(this.constructor as ElementConstructor<BaseDataElement>).get(name);
      if (!def) throw new TypeError(`${this.constructor.name}.${name} is not a field`);
      callHook(this, ASSIGN, def, value);
    },
  },
});
