/**
 * The repositories of one domain, one per aggregate, built on first use: the generic or
 * event-sourced repository, or a registered custom repository around it; and read-only views of
 * projections.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { BaseProjection } from '../elements/base-projection.js';
import { BaseRepository } from '../repository/base-repository.js';
import { RegistrationError } from '../errors/registration.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import { deserializeMessage } from '../messages/deserialize-message.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { aggregateDatabase } from '../processing/command-database.js';
import { buildCustomRepository } from '../repository/custom-repository.js';
import { EventSourcedRepository, type EventSourcedRepositoryHost } from '../repository/event-sourced-repository.js';
import { ProjectionView } from '../repository/projection-view.js';
import { Repository, type RepositoryHost } from '../repository/repository.js';
import { buildAggregateSchema } from '../registry/aggregate-schema.js';
import type { RuntimeContext } from './runtime-context.js';
import type { RuntimeUnits } from './runtime-surface.js';

export class RuntimeRepositories {
  private readonly repositories = new Map<ClassRef, Repository<BaseAggregate>>();
  private readonly host: RepositoryHost;
  private readonly eventSourcedHost: EventSourcedRepositoryHost;

  constructor(
    private readonly context: RuntimeContext,
    units: RuntimeUnits,
  ) {
    this.host = {
      provider: (name: string) => context.provider(name),
      activeUnitOfWork: () => units.active(),
      uow: <R>(work: () => Promise<R>) => units.run(work),
    };
    this.eventSourcedHost = {
      ...this.host,
      eventStore: () => {
        const database = context.require('reading domain.config').event_store.database;
        return { store: context.provider(database).eventStore, provider: database };
      },
      deserializeEvent: (envelope: MessageEnvelope) => deserializeMessage<BaseEvent>(context.messageTypes, envelope, { requireChecksum: true }),
      streamCategoryOf: (aggregate: ClassRef) => context.registry.streamCategoryOf(aggregate),
      snapshotType: (aggregate: ClassRef) => `${context.domainName}.${aggregate.name}.v1`,
      snapshotThreshold: () => context.require('reading domain.config').snapshot_threshold,
    };
  }

  /** Forgets the repositories (the domain closed; providers are opened anew by the next init). */
  clear(): void {
    this.repositories.clear();
  }

  /** A custom repository class gives that repository (typed as it); an aggregate class its repository. */
  repositoryFor<R extends BaseRepository<BaseAggregate>>(repository: ClassRef<R>): R;
  repositoryFor<T extends BaseAggregate>(aggregate: ClassRef<T>): Repository<T>;
  repositoryFor(target: ClassRef): unknown {
    if (target?.prototype instanceof BaseRepository) return this.customRepositoryFor(target as ClassRef<BaseRepository>);
    return this.aggregateRepositoryFor(target as ClassRef<BaseAggregate>);
  }

  /** Read-only access to a registered projection. */
  viewFor<T extends BaseProjection>(projection: ClassRef<T>): ProjectionView<T> {
    const record = this.context.registry.recordOf(projection);
    if (record?.kind !== 'projection') {
      const what = record ? `is registered as ${record.kind}` : 'is not registered';
      throw new RegistrationError(
        `domain.viewFor(${projection?.name ?? String(projection)}): it ${what}; viewFor reads projections (@domain.projection()) only`,
      );
    }
    return new ProjectionView(this.repositoryFor(projection));
  }

  private customRepositoryFor(cls: ClassRef<BaseRepository>): BaseRepository {
    const record = this.context.registry.recordOf(cls);
    if (record?.kind !== 'repository') {
      throw new RegistrationError(
        `${cls.name} is not a registered repository of domain "${this.context.domainName}"; decorate it with @domain.repository({ partOf: SomeAggregate })`,
      );
    }
    const aggregate = record.options.partOf;
    const repository = this.aggregateRepositoryFor(aggregate as ClassRef<BaseAggregate>);
    if (!(repository instanceof cls)) {
      const used = repository instanceof BaseRepository ? repository.constructor.name : 'the generic repository';
      const provider = record.options.databaseProvider;
      throw new RegistrationError(
        `${cls.name} is registered for ${aggregate.name}, but ${aggregate.name} uses ${used}` +
          (provider ? ` (${cls.name} is only for databaseProvider "${provider}")` : ` (registered for ${aggregate.name} first)`) +
          `; get it with domain.repositoryFor(${aggregate.name}), or register one repository per aggregate and database`,
      );
    }
    return repository;
  }

  private aggregateRepositoryFor<T extends BaseAggregate>(aggregate: ClassRef<T>): Repository<T> {
    const { registry } = this.context;
    const config = this.context.require(`getting the repository of ${aggregate?.name}`);
    let repository = this.repositories.get(aggregate);
    if (!repository) {
      const eventSourced = registry.isEventSourced(aggregate);
      const declared = buildAggregateSchema(registry, aggregate);
      // An event-sourced aggregate lives where its events do: the unit of work writes its outbox
      // rows to the event store's database, in the transaction of the append.
      const schema = eventSourced
        ? Object.freeze({ ...declared, provider: aggregateDatabase(registry.requireRecord(aggregate, 'aggregate'), config.event_store.database) })
        : declared;
      const generic = eventSourced ? new EventSourcedRepository<T>(this.eventSourcedHost, schema) : new Repository<T>(this.host, schema);
      const custom = registry
        .recordsOf('repository')
        .find((r) => r.options.partOf === aggregate && (!r.options.databaseProvider || r.options.databaseProvider === generic.schema.provider));
      repository = (custom ? buildCustomRepository(custom.cls, generic) : generic) as Repository<BaseAggregate>;
      this.repositories.set(aggregate, repository);
    }
    return repository as unknown as Repository<T>;
  }
}
