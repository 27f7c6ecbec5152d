/**
 * `domain.viewFor(P)`: read-only access to a projection, for queries and APIs. Reads go through
 * the projection's repository (inside a unit of work they see its uncommitted writes); every
 * write is refused by name, since only projectors keep a read model in step with its events.
 */
import type { BaseProjection } from '../elements/base-projection.js';
import { ReadOnlyViewError } from '../errors/read-only-view.error.js';
import type { Filter, QuerySpec } from '../ports/aggregate-dao.js';
import type { Repository } from './repository.js';

export class ProjectionView<T extends BaseProjection> {
  constructor(private readonly repository: Repository<T>) {}

  get name(): string {
    return this.repository.schema.name;
  }

  /** The record with this identity; ObjectNotFoundError when there is none. */
  get(id: string): Promise<T> {
    return this.repository.get(id);
  }

  /** The record with this identity, or undefined. */
  find(id: string): Promise<T | undefined> {
    return this.repository.find(id);
  }

  query(spec: QuerySpec<T> = {}): Promise<T[]> {
    return this.repository.query(spec);
  }

  count(filter?: Filter<T>): Promise<number> {
    return this.repository.count(filter);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.repository.find(id)) !== undefined;
  }

  // Writes do not type-check; these catch them from JavaScript or through casts.
  add(..._args: never[]): never {
    throw new ReadOnlyViewError(this.name, 'add');
  }

  save(..._args: never[]): never {
    throw new ReadOnlyViewError(this.name, 'save');
  }

  delete(..._args: never[]): never {
    throw new ReadOnlyViewError(this.name, 'delete');
  }
}
