/**
 * The base of custom repositories: users add query methods, and reach the framework's
 * repository for the aggregate (unit-of-work aware get/add/query) through `this.repository`.
 * The runtime binds that repository when it creates the custom one.
 */
import type { BaseAggregate } from './base-aggregate.js';
import type { Repository } from '../repository/repository.js';
import { RegistrationError } from '../errors/registration.error.js';

export const BIND_REPOSITORY: unique symbol = Symbol('protean:bindRepository');

export abstract class BaseRepository<T extends BaseAggregate = BaseAggregate> {
  /** Set by the runtime through BIND_REPOSITORY (installed below, outside the public type). */
  private bound: Repository<T> | undefined;

  /** The framework repository of `T`; available once the domain is initialized. */
  protected get repository(): Repository<T> {
    if (this.bound === undefined) {
      throw new RegistrationError(`${this.constructor.name} is not bound to its aggregate repository yet; get it with domain.repositoryFor(...) after domain.init()`);
    }
    return this.bound;
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
