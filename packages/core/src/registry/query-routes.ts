/**
 * Which query handler method answers which query: read from the `@read` marks of the
 * registered query handlers. The model check refuses a query with more than one route; dispatch
 * uses the one route of a query.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { readMarksOf } from '../elements/read.js';
import type { ElementRegistry } from './registry.js';

export interface QueryRoute {
  readonly handler: ClassRef;
  readonly method: string;
}

/** Every registered query class to the handler methods that name it, in registration order. */
export function queryRoutesOf(registry: ElementRegistry): Map<ClassRef, QueryRoute[]> {
  const routes = new Map<ClassRef, QueryRoute[]>();
  for (const record of registry.recordsOf('queryHandler')) {
    for (const mark of readMarksOf(record.cls)) {
      if (registry.recordOf(mark.query)?.kind !== 'query') continue;
      routes.set(mark.query, [...(routes.get(mark.query) ?? []), { handler: record.cls, method: mark.method }]);
    }
  }
  return routes;
}
