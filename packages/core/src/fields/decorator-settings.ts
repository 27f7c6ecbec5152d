/**
 * Notices the two TypeScript settings under which protean-ts's decorators silently misbehave,
 * at the first place each shows, and refuses them by name:
 * - without `experimentalDecorators`, TypeScript 5 and esbuild emit standard (TC39) decorators,
 *   which are called with `(value, context)` instead of `(prototype, name)`;
 * - with `useDefineForClassFields` (the default for target ES2022 and later), every declared
 *   property becomes an own property of the instance, hiding the accessor the field decorator
 *   put on the prototype: the object validates, but every field reads undefined.
 */
import type { ClassRef } from './field-definition.js';
import { fieldsOf } from './field-metadata.js';
import { DecoratorSettingsError } from '../errors/decorator-settings.error.js';

/** The context object a standard decorator receives as its second argument. */
function isStandardDecoratorContext(arg: unknown): arg is { kind: string; name?: unknown } {
  return typeof arg === 'object' && arg !== null && typeof (arg as { kind?: unknown }).kind === 'string';
}

/** Throws when a decorator was called the standard (TC39) way; `decorator` is how the user wrote it (`@field.string()`). */
export function refuseStandardDecorator(decorator: string, second: unknown): void {
  if (!isStandardDecoratorContext(second)) return;
  const name = typeof second.name === 'string' ? ` on "${second.name}"` : '';
  throw new DecoratorSettingsError(
    'experimentalDecorators',
    `${decorator}${name}`,
    `it was called as a standard (TC39) ${second.kind} decorator, but protean-ts decorators are TypeScript's experimental decorators`,
  );
}

const verified = new WeakSet<object>();

/**
 * Throws when `instance` (just constructed, before any field was set) has own properties named
 * like fields of `cls`. Checked once per class: every instance of a class is built the same way.
 */
export function refuseShadowedFields(cls: ClassRef, instance: object): void {
  if (verified.has(cls)) return;
  const shadowed = fieldsOf(cls)
    .filter((def) => Object.hasOwn(instance, def.name))
    .map((def) => def.name);
  if (shadowed.length) {
    throw new DecoratorSettingsError(
      'useDefineForClassFields',
      cls.name,
      `its field${shadowed.length === 1 ? '' : 's'} ${shadowed.join(', ')} ${shadowed.length === 1 ? 'is' : 'are'} defined as own properties of each instance, which hide the field accessors (every field would read undefined). The class was compiled with useDefineForClassFields on, TypeScript's default for target ES2022 and later`,
    );
  }
  verified.add(cls);
}
