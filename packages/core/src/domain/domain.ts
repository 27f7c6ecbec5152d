/**
 * `Domain` is the registry and the entry point of an application: elements register with its
 * decorators (or `register`), `init()` checks the model and wires infrastructure from
 * domain.toml, and `uow`, `repositoryFor` and `process` run the application.
 *
 * The registry half lives in `ElementRegistry` (registry/registry.ts); the runtime half (units of
 * work, providers, brokers, command processing) in `DomainRuntime` (runtime/domain-runtime.ts),
 * whose named parts `domain.runtime` shows (runtime/runtime-surface.ts).
 * This class only exposes them under one name.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementKind } from '../elements/element-kind.js';
import type {
  AggregateOptions,
  ApplicationServiceOptions,
  EntityOptions,
  HandlerOptions,
  MessageOptions,
  ProcessManagerOptions,
  RepositoryOptions,
  SubscriberOptions,
  ValueObjectOptions,
  QueryOptions,
  QueryHandlerOptions,
  DomainServiceOptions,
  ProjectionOptions,
  ProjectorOptions,
} from '../elements/element-options.js';
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseEntity } from '../elements/base-entity.js';
import type { BaseValueObject } from '../elements/base-value-object.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { BaseCommand } from '../elements/base-command.js';
import type { BaseCommandHandler } from '../elements/base-command-handler.js';
import type { BaseEventHandler } from '../elements/base-event-handler.js';
import type { BaseApplicationService } from '../elements/base-application-service.js';
import type { BaseRepository } from '../repository/base-repository.js';
import type { BaseSubscriber } from '../elements/base-subscriber.js';
import type { BaseQuery, QueryResult } from '../elements/base-query.js';
import type { BaseQueryHandler } from '../elements/base-query-handler.js';
import type { BaseDomainService } from '../elements/base-domain-service.js';
import { bindUnitOfWorkRunner } from '../elements/use-case.js';
import { dispatchQuery } from '../processing/query-dispatch.js';
import { queryRoutesOf, type QueryRoute } from '../registry/query-routes.js';
import { DomainNotInitializedError } from '../errors/domain-not-initialized.error.js';
import type { BaseProcessManager } from '../elements/base-process-manager.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import { RegistrationError } from '../errors/registration.error.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';
import { DomainModelError } from '../errors/domain-model.error.js';
import { ElementRegistry, type HandlerBinding } from '../registry/registry.js';
import type { ElementOptionsByKind } from '../registry/element-defaults.js';
import type { AggregateRecord, ElementRecord, RecordOfKind } from '../registry/element-record.js';
import { inferElementKind } from '../registry/infer-element-kind.js';
import { validateModel } from './model-check.js';
import { checkFieldAccessors } from './field-accessor-check.js';
import { buildAggregateSchema } from '../registry/aggregate-schema.js';
import type { DomainOptions } from './domain-options.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { DomainRuntime } from '../runtime/domain-runtime.js';
import type { InitOptions } from '../runtime/init-options.js';
import type { RuntimeSurface } from '../runtime/runtime-surface.js';
import { Upcasters } from './upcasters.js';
import type { UpcasterClass, UpcasterOptions } from '../elements/upcaster.js';
import type { Repository } from '../repository/repository.js';
import type { ProcessOptions } from '../processing/command-processor.js';
import type { UnitOfWorkOptions } from '../uow/run-in-unit-of-work.js';
import type { HandleMessageOptions, HandleOutcome } from '../processing/message-handling.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { DomainConfig } from '../config/config-types.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { Broker } from '../ports/broker.js';
import type { AbandonedMessageListener } from '../ports/abandoned-message.js';
import type { BaseProjection } from '../elements/base-projection.js';
import type { BaseProjector } from '../elements/base-projector.js';
import type { ProjectionView } from '../repository/projection-view.js';

/** A class decorator that accepts only subclasses of `B`. */
export type ElementDecorator<B> = <C extends ClassRef<B>>(cls: C) => C;

export class Domain {
  readonly name: string;
  readonly options: Readonly<DomainOptions>;
  readonly registry: ElementRegistry;
  /** The `@domain.upcaster` classes, run when a stored event of an older version is read. */
  readonly upcasters: Upcasters;
  /**
   * The time timeouts, retention and retries are decided by (the `clock` option, default the system
   * clock). Read at each use, so a test may replace it at any time, e.g. with a `ManualClock`.
   */
  clock: Clock;

  constructor(name: string, options: DomainOptions = {}) {
    this.registry = new ElementRegistry(name, { identityFunction: options.identityFunction });
    this.upcasters = new Upcasters(this.registry);
    this.name = name;
    this.options = { ...options };
    this.clock = options.clock ?? systemClock;
    bindUnitOfWorkRunner(this.registry, (work) => this.uow(work));
  }

  /** Where domain.toml discovery starts (the `root` option), or undefined for the working directory. */
  get root(): string | undefined {
    return this.options.root;
  }

  // --- registration -------------------------------------------------------------------------

  aggregate(options?: AggregateOptions): ElementDecorator<BaseAggregate> {
    return this.decorator('aggregate', options);
  }

  entity(options: EntityOptions): ElementDecorator<BaseEntity> {
    return this.decorator('entity', options);
  }

  valueObject(options?: ValueObjectOptions): ElementDecorator<BaseValueObject> {
    return this.decorator('valueObject', options);
  }

  event(options?: MessageOptions): ElementDecorator<BaseEvent> {
    return this.decorator('event', options);
  }

  command(options?: MessageOptions): ElementDecorator<BaseCommand> {
    return this.decorator('command', options);
  }

  commandHandler(options: HandlerOptions): ElementDecorator<BaseCommandHandler> {
    return this.decorator('commandHandler', options);
  }

  eventHandler(options: HandlerOptions): ElementDecorator<BaseEventHandler> {
    return this.decorator('eventHandler', options);
  }

  applicationService(options?: ApplicationServiceOptions): ElementDecorator<BaseApplicationService> {
    return this.decorator('applicationService', options);
  }

  repository(options: RepositoryOptions): ElementDecorator<BaseRepository> {
    return this.decorator('repository', options);
  }

  subscriber(options: SubscriberOptions): ElementDecorator<BaseSubscriber> {
    return this.decorator('subscriber', options);
  }

  /** `@domain.query({ partOf: Order })`: a read request answered through `domain.dispatch`. */
  query(options: QueryOptions): ElementDecorator<BaseQuery<unknown>> {
    return this.decorator('query', options);
  }

  /** `@domain.queryHandler({ partOf: Order })`: answers queries in its `@read(Query)` methods. */
  queryHandler(options: QueryHandlerOptions): ElementDecorator<BaseQueryHandler> {
    return this.decorator('queryHandler', options);
  }

  /** `@domain.domainService({ partOf: [Order, Inventory] })`: rules spanning aggregates, guarded by invariants. */
  domainService(options: DomainServiceOptions): ElementDecorator<BaseDomainService> {
    return this.decorator('domainService', options);
  }

  /**
   * `@domain.processManager({ aggregates: [Order, Payment] })` on a BaseProcessManager subclass
   * whose `@handle(Event, { start, correlate, end })` methods drive a long-running process.
   */
  processManager(options: ProcessManagerOptions): ElementDecorator<BaseProcessManager> {
    return this.decorator('processManager', options);
  }

  /** A read model: fields and an identifier, stored on a database provider, written by its projectors. */
  projection(options?: ProjectionOptions): ElementDecorator<BaseProjection> {
    return this.decorator('projection', options);
  }

  /** `@domain.projector({ projectorFor: P, aggregates: [A] })`: keeps P up to date with `@on(Event)` methods. */
  projector(options: ProjectorOptions): ElementDecorator<BaseProjector> {
    return this.decorator('projector', options);
  }

  /**
   * `@domain.upcaster({ event: Deposited, from: 1, to: 2 })` on a class whose `upcast(data,
   * metadata)` returns the event's v2 data from its stored v1 data. Chains run on every read.
   */
  upcaster(options: UpcasterOptions): <C extends UpcasterClass>(cls: C) => C {
    return <C extends UpcasterClass>(cls: C, ...standardContext: unknown[]): C => {
      refuseStandardDecorator('@domain.upcaster()', standardContext[0]);
      this.upcasters.register(cls, options);
      return cls;
    };
  }

  /** Registers `cls` like its decorator would; the kind comes from its base class. */
  register<C extends ClassRef>(cls: C, options?: ElementOptionsByKind[ElementKind]): C {
    const kind = inferElementKind(cls);
    if (!kind)
      throw new RegistrationError(
        `${cls?.name ?? String(cls)} cannot be registered: it extends no protean-ts base class (BaseAggregate, BaseEntity, BaseEvent, ...)`,
      );
    this.registry.register(kind, cls, options as ElementOptionsByKind[typeof kind]);
    return cls;
  }

  private decorator<K extends ElementKind, B>(kind: K, options: ElementOptionsByKind[K] | undefined): ElementDecorator<B> {
    return <C extends ClassRef<B>>(cls: C, ...standardContext: unknown[]): C => {
      refuseStandardDecorator(`@domain.${kind}()`, standardContext[0]);
      this.registry.register(kind, cls, options);
      return cls;
    };
  }

  // --- lookups --------------------------------------------------------------------------------

  recordOf(cls: ClassRef): ElementRecord | undefined {
    return this.registry.recordOf(cls);
  }

  recordsOf<K extends ElementKind>(kind: K): RecordOfKind<K>[] {
    return this.registry.recordsOf(kind);
  }

  messageClassFor(type: string): ClassRef | undefined {
    return this.registry.messageClassFor(type);
  }

  messageTypeOf(message: ClassRef): string {
    return this.registry.messageTypeOf(message);
  }

  /** A stored envelope of an older version of a registered event, upcast to its current version. */
  upcastStored(envelope: MessageEnvelope): MessageEnvelope | undefined {
    return this.upcasters.upcastStored(envelope);
  }

  handlersFor(type: string): readonly HandlerBinding[] {
    return this.registry.handlersFor(type);
  }

  aggregateOf(cls: ClassRef): AggregateRecord | undefined {
    return this.registry.aggregateOf(cls);
  }

  /** The persistence description of an aggregate and its child entities, for database adapters. */
  aggregateSchemaFor<T extends BaseAggregate>(aggregate: ClassRef<T>): AggregateSchema<T> {
    return buildAggregateSchema(this.registry, aggregate);
  }

  // --- model checks ---------------------------------------------------------------------------

  /** Every problem of the registered model, one line each; empty when the model is consistent. */
  validateModel(): string[] {
    return [...validateModel(this.registry), ...this.upcasters.problems()];
  }

  /**
   * Throws DecoratorSettingsError when the domain was compiled with class fields that hide the
   * field accessors, then one DomainModelError listing every problem of the model.
   */
  checkModel(): void {
    checkFieldAccessors(this.registry);
    const problems = this.validateModel();
    if (problems.length) throw new DomainModelError(this.name, problems);
  }

  // --- runtime (units of work, repositories, processing; delegates to DomainRuntime's parts) ---

  /** Checks the model and freezes registration; the runtime then wires databases and brokers. */
  async init(options?: InitOptions): Promise<void> {
    this.checkModel();
    this.registry.freeze();
    await this.runtimeParts.init(options);
  }

  private runtimeInstance: DomainRuntime | undefined;

  /** The runtime with its internal parts (created on first use). */
  private get runtimeParts(): DomainRuntime {
    return (this.runtimeInstance ??= new DomainRuntime(this));
  }

  /**
   * The runtime's named parts the server, the cli and the testing kit use: `infrastructure`,
   * `messages`, `commands`, `units`, `events`, `projections` (docs/architecture.md).
   */
  get runtime(): RuntimeSurface {
    return this.runtimeParts;
  }

  /**
   * Runs `work` in a unit of work: committed when it resolves, rolled back when it throws; nested
   * calls join. `lane`: the priority lane of the events raised in it (docs/flow-control.md).
   */
  uow<R>(work: () => Promise<R> | R, options: UnitOfWorkOptions = {}): Promise<R> {
    return this.runtimeParts.units.run(work, {}, options.lane);
  }

  /**
   * `repositoryFor(Order)`: the repository of an aggregate (a registered custom one, when there
   * is one, typed as the generic `Repository<Order>`). `repositoryFor(OrderRepository)`: that
   * custom repository, typed as its class, with its own methods and the generic ones.
   */
  repositoryFor<R extends BaseRepository<BaseAggregate>>(repository: ClassRef<R>): R;
  repositoryFor<T extends BaseAggregate>(aggregate: ClassRef<T>): Repository<T>;
  repositoryFor(target: ClassRef): unknown {
    return this.runtimeParts.repositories.repositoryFor(target as ClassRef<BaseAggregate>);
  }

  /** Read-only access to a projection: `get`, `find`, `query`, `count`, `exists`; writes are refused. */
  viewFor<T extends BaseProjection>(projection: ClassRef<T>): ProjectionView<T> {
    return this.runtimeParts.repositories.viewFor(projection);
  }

  /**
   * Handles a command now and returns its handler's result, or (asynchronous) queues it and
   * returns its message id; with `awaitOutcome`, queues it and resolves with its handler's result
   * once a server handled it (`CommandRefusedError`, `OutcomeTimeoutError`). `idempotencyKey`:
   * a repeat gets the first command's outcome instead of running. `R` types the result.
   */
  process<R = string>(command: BaseCommand, options?: ProcessOptions): Promise<R> {
    return this.runtimeParts.commands.process(command, options) as Promise<R>;
  }

  private queryRoutes: Map<ClassRef, QueryRoute[]> | undefined;

  /**
   * Answers `query` with its query handler's `@read` method and returns the answer (typed by the
   * query's `BaseQuery<R>`). Runs now, in no unit of work of its own; HandlerNotFoundError when
   * no handler answers the query.
   */
  dispatch<Q extends BaseQuery<unknown>>(query: Q): Promise<QueryResult<Q>> {
    const name = (query as { constructor?: { name?: string } } | null)?.constructor?.name;
    if (!this.runtimeParts.isReady) return Promise.reject(new DomainNotInitializedError(this.name, `dispatching ${name ?? 'a query'}`));
    // Registration is frozen once initialized, so the routes are built once.
    const routes = (this.queryRoutes ??= queryRoutesOf(this.registry));
    return dispatchQuery(
      {
        domainName: this.name,
        queryName: (cls) => (this.registry.recordOf(cls)?.kind === 'query' ? this.registry.recordOf(cls)!.name : undefined),
        routesOf: (cls) => routes.get(cls) ?? [],
      },
      query,
    ) as Promise<QueryResult<Q>>;
  }

  /** Runs the handlers of a delivered message envelope (what stream subscriptions call). */
  handleMessage(envelope: MessageEnvelope, options?: HandleMessageOptions): Promise<HandleOutcome> {
    return this.runtimeParts.messages.handle(envelope, options);
  }

  async close(): Promise<void> {
    await this.runtimeInstance?.close();
  }

  get config(): DomainConfig {
    return this.runtimeParts.config;
  }

  get providers(): ReadonlyMap<string, DatabaseProvider> {
    return this.runtimeParts.providers;
  }

  get brokers(): ReadonlyMap<string, Broker> {
    return this.runtimeParts.brokers;
  }

  get outboxEnabled(): boolean {
    return this.runtimeParts.outboxEnabled;
  }

  // --- outbox alerts ---------------------------------------------------------------------------

  private readonly abandonedMessageListeners = new Set<AbandonedMessageListener>();

  /**
   * Calls `listener` whenever an outbox processor of this domain gives up on a message
   * (`outbox.retry.max_attempts` or `max_total_seconds` reached), for alerting. Listeners may be
   * added at any time; returns a function that removes this one.
   */
  onAbandoned(listener: AbandonedMessageListener): () => void {
    this.abandonedMessageListeners.add(listener);
    return () => {
      this.abandonedMessageListeners.delete(listener);
    };
  }

  /** The listeners added with `onAbandoned`, for the outbox processors. */
  abandonedListeners(): readonly AbandonedMessageListener[] {
    return [...this.abandonedMessageListeners];
  }
}
