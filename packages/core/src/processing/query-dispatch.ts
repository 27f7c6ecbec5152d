/**
 * `domain.dispatch(query)`: finds the one `@read` method for the query's class and calls it on a
 * fresh handler instance. No unit of work is started: a query reads, and a dispatch from inside
 * a unit of work (a use case) reads through that unit's identity map like any repository call.
 */
import { BaseQuery } from '../elements/base-query.js';
import { HandlerNotFoundError } from '../errors/handler-not-found.error.js';
import { RegistrationError } from '../errors/registration.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { QueryRoute } from '../registry/query-routes.js';
import { describe } from '../fields/describe-value.js';

export interface QueryDispatchHost {
  readonly domainName: string;
  /** The registered name of a query class, or undefined when it is not a registered query. */
  queryName(cls: ClassRef): string | undefined;
  routesOf(cls: ClassRef): readonly QueryRoute[];
}

export async function dispatchQuery(host: QueryDispatchHost, query: unknown): Promise<unknown> {
  if (!(query instanceof BaseQuery)) {
    throw new TypeError(
      `domain.dispatch takes a query (an instance of a @domain.query class extending BaseQuery), got ${describe(query)}; commands go to domain.process`,
    );
  }
  const cls = query.constructor as ClassRef;
  const name = host.queryName(cls);
  if (name === undefined) {
    throw new RegistrationError(`${cls.name} is not a registered query of domain "${host.domainName}"; decorate it with @domain.query({ partOf: ... })`);
  }
  const route = host.routesOf(cls)[0];
  if (!route) {
    throw new HandlerNotFoundError(
      `${host.domainName}.${name}`,
      host.domainName,
      `add a method decorated with @read(${cls.name}) to a @domain.queryHandler class`,
    );
  }
  const handler = new route.handler() as Record<string, unknown>;
  const read = handler[route.method];
  if (typeof read !== 'function') throw new TypeError(`${route.handler.name}.${route.method} is not a method; @read must decorate a method`);
  return (read as (query: BaseQuery) => unknown).call(handler, query);
}
