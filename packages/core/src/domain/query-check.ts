/**
 * Model checks for queries and query handlers: each names what it reads (partOf), every `@read`
 * names a registered query, and each query has exactly one handler method.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementKind } from '../elements/element-kind.js';
import { handleMarksOf } from '../elements/handle.js';
import { readMarksOf } from '../elements/read.js';
import type { ElementRegistry } from '../registry/registry.js';
import { queryRoutesOf } from '../registry/query-routes.js';

/**
 * The element kinds a query or query handler may be partOf, with the word used in messages.
 * Queries read aggregates or projections.
 */
export const QUERY_PART_OF_KINDS: Partial<Record<ElementKind, string>> = {
  aggregate: 'aggregate',
  projection: 'projection',
};

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

export function checkQueries(registry: ElementRegistry, problems: string[]): void {
  const allowed = Object.values(QUERY_PART_OF_KINDS).join(' or ');
  const checkPartOf = (label: string, decorator: string, partOf: ClassRef | undefined): void => {
    if (!partOf) {
      problems.push(`${label}: has no partOf; name the ${allowed} it reads: @domain.${decorator}({ partOf: ... })`);
      return;
    }
    const kind = registry.recordOf(partOf)?.kind;
    if (!kind || !(kind in QUERY_PART_OF_KINDS)) problems.push(`${label}: partOf ${nameOf(partOf)} is not a registered ${allowed}`);
  };

  for (const record of registry.recordsOf('query')) checkPartOf(`${record.cls.name} (query)`, 'query', record.options.partOf);

  for (const record of registry.recordsOf('queryHandler')) {
    const label = `${record.cls.name} (query handler)`;
    checkPartOf(label, 'queryHandler', record.options.partOf);
    for (const mark of readMarksOf(record.cls)) {
      if (registry.recordOf(mark.query)?.kind !== 'query') {
        problems.push(
          `${record.cls.name}.${mark.method}: @read(${nameOf(mark.query)}) names a class that is not a registered query (decorate it with @domain.query({ partOf: ... }))`,
        );
      }
    }
    for (const mark of handleMarksOf(record.cls)) {
      problems.push(
        `${record.cls.name}.${mark.method}: @handle(${nameOf(mark.message)}) in a query handler; query handlers answer queries with @read(Query), commands and events go to command and event handlers`,
      );
    }
  }

  // @read anywhere else would never run.
  for (const record of registry.allRecords()) {
    if (record.kind === 'queryHandler') continue;
    for (const mark of readMarksOf(record.cls)) {
      problems.push(
        `${record.cls.name}.${mark.method}: @read(${nameOf(mark.query)}) only works in a @domain.queryHandler class, and ${record.cls.name} is not one`,
      );
    }
  }

  for (const [query, routes] of queryRoutesOf(registry)) {
    if (routes.length < 2) continue;
    const where = routes.map((r) => `${r.handler.name}.${r.method}`).join(', ');
    problems.push(
      `query ${registry.requireRecord(query).name} is answered by ${routes.length} methods (${where}); a query has exactly one @read method in one query handler`,
    );
  }
}
