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
  private bound: Repository<T> | undefined;

  /** Called by the runtime with the repository of the aggregate this repository is part of. */
  [BIND_REPOSITORY](repository: Repository<T>): void {
    this.bound = repository;
  }

  /** The framework repository of `T`; available once the domain is initialized. */
  protected get repository(): Repository<T> {
    if (this.bound === undefined) {
      throw new RegistrationError(`${this.constructor.name} is not bound to its aggregate repository yet; get it with domain.repositoryFor(...) after domain.init()`);
    }
    return this.bound;
  }
}
