/**
 * The repository of one aggregate type, as returned by `domain.repositoryFor(Order)`. It adds
 * the unit of work on top of the provider's DAO: writes inside a unit use its transaction and
 * register the aggregate so its events commit with it; a write outside a unit runs in a small
 * unit of its own, so raised events are never lost.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import { markPersisted } from '../elements/base-aggregate.js';
import { ObjectNotFoundError } from '../errors/object-not-found.error.js';
import { NotEventSourcedError } from '../errors/not-event-sourced.error.js';
import type { AggregateDao, AggregateSchema, Filter, QuerySpec } from '../ports/aggregate-dao.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';

/** A past state of an event-sourced aggregate: its version (position of the last event) or a time. */
export interface AsOfOptions {
  atVersion?: number;
  asOf?: Date;
}

/** What a repository needs from the domain runtime. */
export interface RepositoryHost {
  provider(name: string): DatabaseProvider;
  /** The active unit of work of this domain, if any. */
  activeUnitOfWork(): UnitOfWork | undefined;
  /** Runs `work` in a unit of work of this domain (joining an active one). */
  uow<R>(work: () => Promise<R>): Promise<R>;
}

export class Repository<T extends BaseAggregate> {
  constructor(
    protected readonly host: RepositoryHost,
    readonly schema: AggregateSchema<T>,
  ) {}

  /**
   * Inserts a new aggregate or updates a loaded one (compare-and-set on its version) and sets
   * `_version` to the stored version. Throws ExpectedVersionError when another unit changed it first.
   */
  async add(aggregate: T): Promise<T> {
    this.assertAggregate(aggregate);
    const uow = this.host.activeUnitOfWork();
    if (!uow) return this.host.uow(() => this.add(aggregate));
    const dao = await this.daoIn(uow);
    uow.track(aggregate, this.schema);
    const expected = aggregate._version;
    await dao.save(aggregate, expected);
    markPersisted(aggregate, expected + 1);
    return aggregate;
  }

  /**
   * The aggregate with this identity; ObjectNotFoundError when there is none. `options` (as-of
   * loads) are for event-sourced aggregates only: rows keep no history (NotEventSourcedError).
   */
  async get(id: string, options?: AsOfOptions): Promise<T> {
    if (options?.atVersion !== undefined || options?.asOf !== undefined)
      throw new NotEventSourcedError(this.schema.name, 'load a past version or time (atVersion, asOf)');
    const found = await this.find(id);
    if (!found) throw new ObjectNotFoundError(this.schema.name, String(id));
    return found;
  }

  /** The aggregate with this identity, or undefined. */
  async find(id: string): Promise<T | undefined> {
    return (await this.readDao()).get(String(id));
  }

  async query(spec: QuerySpec<T> = {}): Promise<T[]> {
    return (await this.readDao()).query(spec);
  }

  async count(filter?: Filter<T>): Promise<number> {
    return (await this.readDao()).count(filter);
  }

  /** Deletes the aggregate (by instance or identity); false when it was not stored. */
  async delete(target: T | string): Promise<boolean> {
    const id = typeof target === 'string' ? target : target.id;
    const uow = this.host.activeUnitOfWork();
    if (!uow) return this.host.uow(() => this.delete(id));
    return (await this.daoIn(uow)).delete(String(id));
  }

  private async daoIn(uow: UnitOfWork): Promise<AggregateDao<T>> {
    const tx = await uow.transactionFor(this.schema.provider);
    return this.host.provider(this.schema.provider).dao(this.schema, tx);
  }

  // Reads inside a unit see its own uncommitted writes; outside one they auto-commit.
  private async readDao(): Promise<AggregateDao<T>> {
    const uow = this.host.activeUnitOfWork();
    return uow ? this.daoIn(uow) : this.host.provider(this.schema.provider).dao(this.schema);
  }

  protected assertAggregate(aggregate: T): void {
    if (!(aggregate instanceof this.schema.aggregate)) {
      const got = aggregate === null || aggregate === undefined ? String(aggregate) : (aggregate as object).constructor?.name;
      throw new TypeError(`The ${this.schema.name} repository can only add ${this.schema.name} objects, got ${got}`);
    }
  }
}
