/**
 * A request for information: immutable data, validated on `create` like a command, answered by
 * exactly one `@read` method of a query handler through `domain.dispatch(query)`. A query
 * changes nothing, so it carries no message metadata and is never stored or published.
 *
 * `R` is the type of the answer: `class OrdersOfCustomer extends BaseQuery<OrderView[]>` makes
 * `domain.dispatch(OrdersOfCustomer.create({...}))` a `Promise<OrderView[]>`, and a `@read`
 * method returning anything else does not compile.
 */
import { BaseDataElement } from './base-data-element.js';
import { plainEquals } from './element-plain.js';

export abstract class BaseQuery<R = unknown> extends BaseDataElement {
  // Type-only: carries the answer's type for dispatch and @read, and keeps queries distinct
  // from commands and value objects for the decorators. Never set at runtime.
  // Protected, not private: declaration files drop the types of private members, so the
  // published typings would lose R and `dispatch` would answer `unknown`.
  declare protected readonly queryResult: R;

  /** Same class and same data. */
  equals(other: unknown): boolean {
    return other instanceof BaseQuery && other.constructor === this.constructor && plainEquals(this.toPlain(), other.toPlain());
  }
}

/** The answer type a query class declares: `QueryResult<OrdersOfCustomer>` is `OrderView[]`. */
export type QueryResult<Q> = Q extends BaseQuery<infer R> ? R : never;
