/**
 * Where field definitions live: recorded per class with reflect-metadata, read back with
 * `fieldsOf(cls)` in declaration order, inherited fields first, plus the implicit `id`.
 */
import 'reflect-metadata';
import type { ClassRef, FieldDefinition } from './field-definition.js';

const OWN_FIELDS = Symbol('protean:ownFields');
/** Set on BaseAggregate/BaseEntity: classes carrying it get an implicit `id` when no field is the identifier. */
export const HAS_IDENTITY = Symbol('protean:hasIdentity');

const cache = new WeakMap<object, readonly FieldDefinition[]>();
const mapCache = new WeakMap<object, ReadonlyMap<string, FieldDefinition>>();

export const IMPLICIT_ID: FieldDefinition = Object.freeze({
  name: 'id',
  kind: 'identifier',
  required: false,
  unique: true,
  identifier: true,
  implicit: true,
  description: 'Identity, generated when not given',
});

/** Records one field on the class owning `prototype`; a redeclared name replaces the inherited one. */
export function recordField(prototype: object, definition: FieldDefinition): void {
  const own: FieldDefinition[] = Reflect.getOwnMetadata(OWN_FIELDS, prototype) ?? [];
  const next = own.filter((f) => f.name !== definition.name);
  next.push(Object.freeze(definition));
  Reflect.defineMetadata(OWN_FIELDS, next, prototype);
  cache.delete(prototype.constructor);
  mapCache.delete(prototype.constructor);
}

export function hasIdentity(cls: ClassRef): boolean {
  return Reflect.getMetadata(HAS_IDENTITY, cls) === true;
}

/** Every field of `cls`: inherited first, then its own, in declaration order; implicit `id` first when it applies. */
export function fieldsOf(cls: ClassRef): readonly FieldDefinition[] {
  const cached = cache.get(cls);
  if (cached) return cached;
  const chain: object[] = [];
  for (let proto: object | null = cls.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    chain.unshift(proto);
  }
  const byName = new Map<string, FieldDefinition>();
  for (const proto of chain) {
    for (const def of (Reflect.getOwnMetadata(OWN_FIELDS, proto) ?? []) as FieldDefinition[]) {
      byName.delete(def.name);
      byName.set(def.name, def);
    }
  }
  let fields = [...byName.values()];
  if (hasIdentity(cls) && !fields.some((f) => f.identifier)) fields = [IMPLICIT_ID, ...fields.filter((f) => f.name !== 'id')];
  const frozen = Object.freeze(fields);
  cache.set(cls, frozen);
  return frozen;
}

/** The identity field of an aggregate or entity class, or undefined for elements without identity. */
export function identityFieldOf(cls: ClassRef): FieldDefinition | undefined {
  return fieldsOf(cls).find((f) => f.identifier);
}

/** The fields of `cls` by name (cached, like `fieldsOf`). */
export function fieldMapOf(cls: ClassRef): ReadonlyMap<string, FieldDefinition> {
  let map = mapCache.get(cls);
  if (!map) {
    map = new Map(fieldsOf(cls).map((f) => [f.name, f]));
    mapCache.set(cls, map);
  }
  return map;
}
