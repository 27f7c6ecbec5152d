/**
 * Builds a user's `@domain.repository({ partOf: Order })` class and binds the framework
 * repository to it (`this.repository`), which BaseRepository's generic methods delegate to.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import { BIND_REPOSITORY, type BaseRepository } from './base-repository.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { Repository } from './repository.js';

type Bindable = BaseRepository & { [BIND_REPOSITORY](repository: unknown): void };

export function buildCustomRepository<T extends BaseAggregate>(cls: ClassRef, repository: Repository<T>): BaseRepository<T> {
  const custom = new cls() as Bindable;
  custom[BIND_REPOSITORY](repository);
  return custom as unknown as BaseRepository<T>;
}
