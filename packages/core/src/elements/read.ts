/**
 * `@read(QueryClass)` marks the query handler method that answers a query. Kept apart from
 * `@handle` marks: queries are not messages, so they never reach the message routing.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';
import type { BaseQuery, QueryResult } from './base-query.js';

const READS = Symbol('protean:reads');

export interface ReadMark {
  query: ClassRef;
  method: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ReadMethod<Q> = (query: Q, ...rest: any[]) => QueryResult<Q> | Promise<QueryResult<Q>>;

export function read<Q extends BaseQuery<unknown>>(query: ClassRef<Q>) {
  // The method is checked against the query: it takes the query and returns (or resolves to)
  // the answer type the query declares.
  return <F extends ReadMethod<Q>>(target: object, key: string | symbol, _descriptor: TypedPropertyDescriptor<F>): void => {
    refuseStandardDecorator(`@read(${typeof query === 'function' ? query.name : '?'})`, key);
    if (typeof key !== 'string') throw new TypeError(`@read methods must have string names, got ${String(key)}`);
    if (typeof query !== 'function') {
      throw new TypeError(`@read on ${target.constructor.name}.${key} needs a query class, got ${String(query)} (check for an import cycle)`);
    }
    const own: ReadMark[] = Reflect.getOwnMetadata(READS, target) ?? [];
    Reflect.defineMetadata(READS, [...own, { query, method: key }], target);
  };
}

/** Read marks of `cls`, inherited first. */
export function readMarksOf(cls: ClassRef): ReadMark[] {
  const chain: object[] = [];
  for (let p: object | null = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);
  return chain.flatMap((proto) => (Reflect.getOwnMetadata(READS, proto) ?? []) as ReadMark[]);
}
