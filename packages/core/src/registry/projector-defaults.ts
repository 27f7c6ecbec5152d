/**
 * The record of a `@domain.projector({...})`: option shapes are refused at registration (a
 * list that is not a list), what the options refer to is checked by `domain.init()`
 * (projection-check.ts), since registration order is free.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { ProjectorOptions } from '../elements/element-options.js';
import { RegistrationError } from '../errors/registration.error.js';
import type { ProjectorRecord } from './element-record.js';

function listOption<T>(value: unknown, what: string, cls: ClassRef, isItem: (item: unknown) => item is T, example: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isItem))
    throw new RegistrationError(
      `${cls.name}: ${what} must be a list, e.g. ${example}; got ${typeof value === 'function' ? value.name : JSON.stringify(value)}`,
    );
  return Object.freeze([...value]);
}

export function resolveProjectorRecord(cls: ClassRef, o: Partial<ProjectorOptions>): ProjectorRecord {
  const subscriptionType = o.subscriptionType;
  if (subscriptionType !== undefined && subscriptionType !== 'stream' && subscriptionType !== 'event_store') {
    throw new RegistrationError(`${cls.name}: subscriptionType must be 'stream' or 'event_store', got ${JSON.stringify(subscriptionType)}`);
  }
  return {
    kind: 'projector',
    cls,
    name: cls.name,
    options: {
      projectorFor: o.projectorFor,
      aggregates: listOption(o.aggregates, 'aggregates', cls, (a): a is ClassRef => typeof a === 'function', 'aggregates: [Order]'),
      streamCategories: listOption(
        o.streamCategories,
        'streamCategories',
        cls,
        (c): c is string => typeof c === 'string' && c.trim() !== '',
        "streamCategories: ['shop::order']",
      ),
      subscriptionType,
    },
  };
}
