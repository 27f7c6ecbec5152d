/**
 * The base of custom repositories: users add query methods next to the generic ones (add, get,
 * find, query, count, delete), which delegate to the framework's repository for the aggregate
 * (unit-of-work aware), also reachable as `this.repository`. The runtime binds that repository
 * when it creates the custom one; `domain.repositoryFor(OrderRepository)` returns it typed.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { AsOfOptions, Repository } from './repository.js';
import type { Filter, QuerySpec } from '../ports/aggregate-dao.js';
import { RegistrationError } from '../errors/registration.error.js';

export const BIND_REPOSITORY: unique symbol = Symbol('protean:bindRepository');

export abstract class BaseRepository<T extends BaseAggregate = BaseAggregate> {
  /** Set by the runtime through BIND_REPOSITORY (installed below, outside the public type). */
  private bound: Repository<T> | undefined;

  /** The framework repository of `T`; available once the domain is initialized. */
  protected get repository(): Repository<T> {
    if (this.bound === undefined) {
      throw new RegistrationError(
        `${this.constructor.name} is not bound to its aggregate repository yet; get it with domain.repositoryFor(${this.constructor.name}) after domain.init()`,
      );
    }
    return this.bound;
  }

  // The generic methods, typed for `T`. A subclass may override any of them (and call super).

  /** Inserts a new aggregate or updates a loaded one; see `Repository.add`. */
  add(aggregate: T): Promise<T> {
    return this.repository.add(aggregate);
  }

  /** The aggregate with this identity; ObjectNotFoundError when there is none. As-of `options` need an event-sourced aggregate. */
  get(id: string, options?: AsOfOptions): Promise<T> {
    return this.repository.get(id, options);
  }

  /** The aggregate with this identity, or undefined. */
  find(id: string): Promise<T | undefined> {
    return this.repository.find(id);
  }

  query(spec?: QuerySpec<T>): Promise<T[]> {
    return this.repository.query(spec);
  }

  count(filter?: Filter<T>): Promise<number> {
    return this.repository.count(filter);
  }

  /** Deletes the aggregate (by instance or identity); false when it was not stored. */
  delete(target: T | string): Promise<boolean> {
    return this.repository.delete(target);
  }
}

// Not a class member: a unique-symbol member in the public type breaks declaration emit.
Object.defineProperty(BaseRepository.prototype, BIND_REPOSITORY, {
  value(this: { bound: unknown }, repository: unknown): void {
    this.bound = repository;
  },
  writable: true,
  configurable: true,
  enumerable: false,
});
