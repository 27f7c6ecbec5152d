/**
 * Installs the getter/setter a field decorator puts on the prototype. Values live in the
 * instance's private state, so every assignment goes through the element's validation.
 */
import { FIELD_READ, FIELD_WRITE, isFieldHost, type FieldHost } from './field-host.js';

export function installFieldAccessor(prototype: object, name: string): void {
  Object.defineProperty(prototype, name, {
    configurable: true,
    enumerable: true,
    get(this: FieldHost) {
      return isFieldHost(this) ? this[FIELD_READ](name) : undefined;
    },
    set(this: FieldHost, value: unknown) {
      if (!isFieldHost(this)) {
        throw new TypeError(
          `Field "${name}" is declared on a class that is not a protean-ts element; extend BaseAggregate, BaseEntity, BaseValueObject, BaseEvent or BaseCommand`,
        );
      }
      this[FIELD_WRITE](name, value);
    },
  });
}
