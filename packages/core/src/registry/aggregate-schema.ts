/**
 * Builds the AggregateSchema contract (ports/aggregate-dao.ts) a database adapter persists:
 * the aggregate's fields, table and provider, and every child entity reachable through
 * hasOne/hasMany, recursively.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { fieldsOf, identityFieldOf } from '../fields/field-metadata.js';
import type { AggregateSchema, EntitySchema } from '../ports/aggregate-dao.js';
import { RegistrationError } from '../errors/registration.error.js';
import { snakeCase } from './naming.js';
import type { ElementRegistry } from './registry.js';

function childEntities(registry: ElementRegistry, cls: ClassRef, seen: Set<ClassRef>, out: EntitySchema[]): void {
  for (const def of fieldsOf(cls)) {
    if (def.kind !== 'hasOne' && def.kind !== 'hasMany') continue;
    const target = def.target?.();
    if (!target || seen.has(target)) continue;
    seen.add(target);
    const record = registry.recordOf(target);
    out.push(
      Object.freeze({
        entity: target,
        name: target.name,
        tableName: record?.kind === 'entity' ? record.options.schemaName : snakeCase(target.name),
        identityField: identityFieldOf(target)?.name ?? 'id',
        fields: fieldsOf(target),
      }),
    );
    childEntities(registry, target, seen, out);
  }
}

export function buildAggregateSchema<T>(registry: ElementRegistry, aggregate: ClassRef<T>): AggregateSchema<T> {
  const record = registry.recordOf(aggregate);
  // A projection is stored like an aggregate: one row, its fields as columns.
  if (record?.kind !== 'aggregate' && record?.kind !== 'projection') {
    throw new RegistrationError(
      `${aggregate?.name ?? String(aggregate)} is not a registered aggregate or projection of domain "${registry.domainName}"; only aggregates and projections are persisted`,
    );
  }
  const entities: EntitySchema[] = [];
  childEntities(registry, aggregate, new Set([aggregate]), entities);
  return Object.freeze({
    aggregate,
    name: aggregate.name,
    tableName: record.options.schemaName,
    provider: record.options.provider,
    identityField: identityFieldOf(aggregate)?.name ?? 'id',
    fields: fieldsOf(aggregate),
    entities: Object.freeze(entities),
  });
}
