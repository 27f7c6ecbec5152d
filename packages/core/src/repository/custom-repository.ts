/**
 * Builds a user's `@domain.repository({ partOf: Order })` class: binds the framework
 * repository to it (`this.repository`), and makes the generic methods (add, get, find, query,
 * count, delete) callable on it unless the class defines its own.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import { BIND_REPOSITORY } from '../elements/base-repository.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { Repository } from './repository.js';

const GENERIC_METHODS = ['add', 'get', 'find', 'query', 'count', 'delete'] as const;

type Bindable = { [BIND_REPOSITORY](repository: unknown): void } & Record<string, unknown>;

export function buildCustomRepository<T extends BaseAggregate>(cls: ClassRef, repository: Repository<T>): Repository<T> {
  const custom = new cls() as Bindable;
  custom[BIND_REPOSITORY](repository);
  for (const method of GENERIC_METHODS) {
    if (method in custom) continue;
    const generic = repository[method] as (...args: unknown[]) => unknown;
    Object.defineProperty(custom, method, { value: generic.bind(repository), enumerable: false, configurable: true, writable: true });
  }
  return custom as unknown as Repository<T>;
}
