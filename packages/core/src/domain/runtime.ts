/**
 * The runtime half of a Domain: `init()` loads domain.toml and opens databases and brokers;
 * `uow`, `repositoryFor`, `process` and `handleMessage` run the application on top of them.
 * The Domain class delegates its runtime methods here.
 */
import '../adapters/memory/index.js';
import '../adapters/inline/index.js';
import { closeInfrastructure, openInfrastructure, type Infrastructure } from '../adapters/registry-connect.js';
import type { DomainConfig } from '../config/config-types.js';
import { ConfigError } from '../config/config-error.js';
import { deepMerge } from '../config/deep-merge.js';
import { loadConfigWithAdapters, type ConfigOverrides } from '../config/load-config.js';
import { outboxEnabled } from '../config/outbox-enabled.js';
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseCommand } from '../elements/base-command.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageContext } from '../elements/element-host.js';
import { DomainNotInitializedError } from '../errors/domain-not-initialized.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import { getLogger, type Logger } from '../logging/logger.js';
import { deserializeMessage } from '../messages/deserialize-message.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { stampCommand } from '../messages/stamp-command.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { Broker } from '../ports/broker.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { InboxEntry, InboxStore, InboxVerdict } from '../ports/inbox-store.js';
import { TransactionStateError } from '../errors/transaction-state.error.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { processCommand, processesAsynchronously, type ProcessOptions } from '../processing/command-processor.js';
import { aggregateDatabase, commandDatabase } from '../processing/command-database.js';
import { SpanKind, type Span } from '@opentelemetry/api';
import { inSpan } from '../tracing/in-span.js';
import { SpanAttributes, SpanNames } from '../tracing/span-names.js';
import { inHandlerSpan } from '../tracing/handler-span.js';
import { commandSpanAttributes } from '../tracing/message-span-attributes.js';
import { OUTCOME_EXTENSION, refused, succeeded } from '../processing/command-outcomes.js';
import { isPermanentError } from '../errors/permanent-error.js';
import { handleMessage, runOnceInInbox, type BindingInvoker, type HandleMessageOptions, type HandleOutcome } from '../processing/message-handling.js';
import { contextOf, invokeHandler } from '../processing/handler-invocation.js';
import type { HandlerBinding } from './registry.js';
import { runProcessManager, type ProcessManagerHost } from '../process-managers/process-manager-runner.js';
import { TransitionCache } from '../process-managers/transition-cache.js';
import { dispatchCommittedEvents } from '../processing/sync-event-dispatcher.js';
import { BaseRepository } from '../elements/base-repository.js';
import { RegistrationError } from '../errors/registration.error.js';
import { buildCustomRepository } from '../repository/custom-repository.js';
import { Repository } from '../repository/repository.js';
import { EventSourcedRepository, type EventSourcedRepositoryHost } from '../repository/event-sourced-repository.js';
import { outboxRowsForEvents } from '../uow/outbox-rows.js';
import { runInUnitOfWork } from '../uow/run-in-unit-of-work.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { currentMessageContext, currentUnitOfWork } from '../uow/uow-storage.js';
import type { Domain } from './domain.js';
import type { BaseProjection } from '../elements/base-projection.js';
import { ProjectionView } from '../repository/projection-view.js';
import { projectionProviderProblems } from './projection-providers.js';
import { ProjectionBarrier } from '../processing/projection-barrier.js';

export interface InitOptions {
  /** An explicit domain.toml; default: discovered from the domain's `root`. */
  configPath?: string;
  /** Configuration (domain.toml shape, snake_case) merged over the file and the Domain's `config` option. */
  config?: ConfigOverrides;
  /**
   * False: create the databases and brokers but do not connect them yet (they connect on first
   * use, or when the caller calls their `connect()`). `protean-ts server` uses it to read the
   * configuration first and then wait for services that are still coming up. Default true.
   */
  connect?: boolean;
}

/** Receives the events a unit of work committed. */
export type CommittedEventsListener = (events: readonly BaseEvent[]) => void;

type RuntimeState = 'new' | 'initializing' | 'ready' | 'closed';

export class DomainRuntime {
  readonly log: Logger;
  private state: RuntimeState = 'new';
  private starting: Promise<void> | undefined;
  private loadedConfig: DomainConfig | undefined;
  private file: string | null = null;
  private infrastructure: Infrastructure = { providers: new Map(), brokers: new Map() };
  private readonly repositories = new Map<ClassRef, Repository<BaseAggregate>>();
  private readonly transitions = new TransitionCache();

  constructor(private readonly domain: Domain) {
    this.log = getLogger('domain', { domain: domain.name });
  }

  get domainName(): string {
    return this.domain.name;
  }

  get isReady(): boolean {
    return this.state === 'ready';
  }

  // --- lifecycle ------------------------------------------------------------------------------

  /** Idempotent: a second call while ready (or initializing) waits for the first. */
  async init(options: InitOptions = {}): Promise<void> {
    if (this.state === 'ready') return;
    if (this.starting) return this.starting;
    this.state = 'initializing';
    this.starting = this.start(options).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(options: InitOptions): Promise<void> {
    try {
      // The adapter packages the configuration names are imported first, so their keys are checked.
      const loaded = await loadConfigWithAdapters({
        configPath: options.configPath,
        searchFrom: this.domain.root,
        overrides: deepMerge<ConfigOverrides>({}, this.domain.options.config ?? {}, options.config ?? {}),
      });
      for (const warning of loaded.warnings) this.log.warn(warning, { file: loaded.file });
      this.domain.registry.checkIdentityStrategy(loaded.config.identity_strategy);
      this.checkAggregateProviders(loaded.config, loaded.file);
      this.infrastructure = await openInfrastructure(loaded.config, this.log, { connect: options.connect ?? true });
      this.loadedConfig = loaded.config;
      this.file = loaded.file;
      this.domain.registry.setMessageContextProvider(() => (this.activeUnitOfWork() ? currentMessageContext() : undefined));
      this.state = 'ready';
      this.log.info('domain initialized', {
        file: loaded.file,
        outbox: this.outboxEnabled,
        databases: [...this.infrastructure.providers.keys()],
        brokers: [...this.infrastructure.brokers.keys()],
      });
    } catch (error) {
      this.state = 'new';
      throw error;
    }
  }

  /** Closes brokers and databases; the domain can be initialized again afterwards. */
  async close(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.state !== 'ready') return;
    this.state = 'closed';
    this.domain.registry.setMessageContextProvider(undefined);
    await closeInfrastructure(this.infrastructure, this.log);
    this.repositories.clear();
    this.transitions.clear();
    this.log.info('domain closed');
    this.state = 'new';
  }

  // --- accessors ------------------------------------------------------------------------------

  get config(): DomainConfig {
    return this.require('reading domain.config');
  }

  /** The domain.toml that was loaded, or null when defaults and overrides alone apply. */
  get configFile(): string | null {
    this.require('reading domain.configFile');
    return this.file;
  }

  get providers(): ReadonlyMap<string, DatabaseProvider> {
    this.require('reading domain.providers');
    return this.infrastructure.providers;
  }

  get brokers(): ReadonlyMap<string, Broker> {
    this.require('reading domain.brokers');
    return this.infrastructure.brokers;
  }

  get outboxEnabled(): boolean {
    return outboxEnabled(this.require('reading domain.outboxEnabled'));
  }

  provider(name: string): DatabaseProvider {
    this.require(`using database "${name}"`);
    const provider = this.infrastructure.providers.get(name);
    if (!provider)
      throw new ConfigError(
        [
          {
            path: `databases.${name}`,
            message: `database "${name}" is not configured; add a [databases.${name}] table (configured: ${[...this.infrastructure.providers.keys()].join(', ')})`,
          },
        ],
        this.file,
      );
    return provider;
  }

  broker(name: string): Broker {
    this.require(`using broker "${name}"`);
    const broker = this.infrastructure.brokers.get(name);
    if (!broker)
      throw new ConfigError(
        [
          {
            path: `brokers.${name}`,
            message: `broker "${name}" is not configured; add a [brokers.${name}] table (configured: ${[...this.infrastructure.brokers.keys()].join(', ')})`,
          },
        ],
        this.file,
      );
    return broker;
  }

  /**
   * Persistence descriptions of every aggregate stored as rows (for `db setup` and adapters);
   * event-sourced aggregates have no table, their events live in the event store.
   */
  aggregateSchemas(): AggregateSchema[] {
    const rows = this.domain.registry
      .recordsOf('aggregate')
      .filter((record) => !record.options.isEventSourced)
      .map((record) => this.domain.aggregateSchemaFor(record.cls as ClassRef<BaseAggregate>));
    // Projections are stored as rows too (`db setup` creates their tables).
    return [...rows, ...this.projectionSchemas()];
  }

  /** Persistence descriptions of every projection. */
  projectionSchemas(): AggregateSchema[] {
    return this.domain.registry.recordsOf('projection').map((record) => this.domain.aggregateSchemaFor(record.cls as ClassRef<BaseAggregate>));
  }

  /** Read-only access to a registered projection. */
  viewFor<T extends BaseProjection>(projection: ClassRef<T>): ProjectionView<T> {
    const record = this.domain.registry.recordOf(projection);
    if (record?.kind !== 'projection') {
      const what = record ? `is registered as ${record.kind}` : 'is not registered';
      throw new RegistrationError(
        `domain.viewFor(${projection?.name ?? String(projection)}): it ${what}; viewFor reads projections (@domain.projection()) only`,
      );
    }
    return new ProjectionView(this.repositoryFor(projection));
  }

  // --- units of work and repositories -------------------------------------------------------

  async uow<R>(work: () => Promise<R> | R, context: Partial<MessageContext> = {}): Promise<R> {
    this.require('starting a unit of work');
    return runInUnitOfWork(this.unitHost, work, { context, afterCommit: (events) => this.afterCommit(events) });
  }

  /** A new unit of work even inside another one: each handler call gets its own. */
  async freshUnitOfWork<R>(work: () => Promise<R> | R, context: Partial<MessageContext> = {}): Promise<R> {
    this.require('starting a unit of work');
    return runInUnitOfWork(this.unitHost, work, { context, fresh: true, afterCommit: (events) => this.afterCommit(events) });
  }

  /** The active unit of work of this domain, if any. */
  activeUnitOfWork(): UnitOfWork | undefined {
    const uow = currentUnitOfWork();
    return uow?.host === this.unitHost ? uow : undefined;
  }

  /** A custom repository class gives that repository (typed as it); an aggregate class its repository. */
  repositoryFor<R extends BaseRepository<BaseAggregate>>(repository: ClassRef<R>): R;
  repositoryFor<T extends BaseAggregate>(aggregate: ClassRef<T>): Repository<T>;
  repositoryFor(target: ClassRef): unknown {
    if (target?.prototype instanceof BaseRepository) return this.customRepositoryFor(target as ClassRef<BaseRepository>);
    return this.aggregateRepositoryFor(target as ClassRef<BaseAggregate>);
  }

  private customRepositoryFor(cls: ClassRef<BaseRepository>): BaseRepository {
    const record = this.domain.registry.recordOf(cls);
    if (record?.kind !== 'repository') {
      throw new RegistrationError(
        `${cls.name} is not a registered repository of domain "${this.domain.name}"; decorate it with @domain.repository({ partOf: SomeAggregate })`,
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
    this.require(`getting the repository of ${aggregate?.name}`);
    let repository = this.repositories.get(aggregate);
    if (!repository) {
      const eventSourced = this.domain.registry.isEventSourced(aggregate);
      const declared = this.domain.aggregateSchemaFor(aggregate);
      // An event-sourced aggregate lives where its events do: the unit of work writes its outbox
      // rows to the event store's database, in the transaction of the append.
      const schema = eventSourced
        ? Object.freeze({
            ...declared,
            provider: aggregateDatabase(this.domain.registry.requireRecord(aggregate, 'aggregate'), this.config.event_store.database),
          })
        : declared;
      const generic = eventSourced ? new EventSourcedRepository<T>(this.eventSourcedRepositoryHost, schema) : new Repository<T>(this.repositoryHost, schema);
      const custom = this.domain.registry
        .recordsOf('repository')
        .find((r) => r.options.partOf === aggregate && (!r.options.databaseProvider || r.options.databaseProvider === generic.schema.provider));
      repository = (custom ? buildCustomRepository(custom.cls, generic) : generic) as Repository<BaseAggregate>;
      this.repositories.set(aggregate, repository);
    }
    return repository as unknown as Repository<T>;
  }

  // --- processing -----------------------------------------------------------------------------

  async process(command: BaseCommand, options: ProcessOptions = {}): Promise<unknown> {
    const config = this.require(`processing ${command?.constructor?.name}`);
    const asynchronous = processesAsynchronously(config.command_processing, options);
    return inSpan(SpanNames.commandProcess, { kind: asynchronous ? SpanKind.PRODUCER : SpanKind.INTERNAL }, async (span) => {
      // Stamped inside the span: an async command's trace headers name this span as its parent.
      const stamped = stampCommand(this.domain.registry, command, this.activeUnitOfWork() ? currentMessageContext() : undefined);
      span?.setAttributes(commandSpanAttributes(this.domain.name, stamped, asynchronous));
      return this.processStamped(stamped, options);
    });
  }

  private processStamped(stamped: BaseCommand, options: ProcessOptions): Promise<unknown> {
    const config = this.require(`processing ${stamped.constructor.name}`);
    return processCommand(
      {
        domainName: this.domain.name,
        commandProcessing: config.command_processing,
        outboxEnabled: this.outboxEnabled,
        outboxConfig: config.outbox,
        handlersFor: (type) => this.domain.handlersFor(type),
        provider: (name) => this.provider(name),
        commandDatabase: (command) => this.commandDatabase(command.constructor as ClassRef),
        unitOfWork: (work, context) => this.uow(work, context),
        activeUnitOfWork: () => this.activeUnitOfWork(),
      },
      stamped,
      options,
    );
  }

  /** Runs the handlers of a delivered message (what stream subscriptions call). */
  async handleMessage(envelope: MessageEnvelope, options: HandleMessageOptions = {}): Promise<HandleOutcome> {
    const config = this.require('handling a message');
    // Everything the framework publishes is signed; an unsigned envelope is refused unless accepted.
    const requireChecksum = !config.server.stream_subscription.accept_unsigned_envelopes;
    return handleMessage(
      {
        domainName: this.domain.name,
        handlersFor: (type) => this.domain.handlersFor(type),
        deserialize: (e) => deserializeMessage(this.domain, e, { requireChecksum }),
        freshUnitOfWork: (work, context) => this.freshUnitOfWork(work, context),
        ...(this.inbox ? { enterInbox: (entry: InboxEntry) => this.enterInbox(entry) } : {}),
        invoke: recordsOutcome(envelope) ? this.invokeRecordingOutcome(envelope) : this.invokeBinding,
      },
      envelope,
      options,
    );
  }

  /**
   * A subscription gave up on `envelope` (its retries ran out, or it failed for good): a command
   * whose sender waits for its outcome gets this error as its refusal. Anything else is ignored.
   */
  async recordGivenUpCommand(envelope: MessageEnvelope, error: unknown): Promise<void> {
    if (!recordsOutcome(envelope)) return;
    const outcomes = this.provider(this.commandDatabase(envelope.metadata.headers.type)).commandOutcomes;
    await outcomes.complete(null, envelope.metadata.headers.id, refused(error));
  }

  /**
   * The database an asynchronous command is queued in and its outcome recorded in: its
   * aggregate's (see processing/command-database.ts). `command` is its class or message type.
   */
  commandDatabase(command: ClassRef | string): string {
    const config = this.require('finding the database of a command');
    return commandDatabase(this.domain.registry, command, {
      eventStoreDatabase: config.event_store.database,
      databases: [...this.infrastructure.providers.keys()],
    });
  }

  /** Every database some registered command is queued in (where their outcomes are cleaned up). */
  commandDatabases(): string[] {
    const commands = this.domain.registry.recordsOf('command');
    return [...new Set(commands.map((record) => this.commandDatabase(record.cls)))];
  }

  /**
   * For a command whose sender waits for its outcome: the handler's result is recorded in its
   * own transaction, and a permanent refusal on its own after that transaction rolled back
   * (a transient failure is retried by the subscription, so it is no outcome yet).
   */
  private invokeRecordingOutcome(envelope: MessageEnvelope): BindingInvoker {
    const commandId = envelope.metadata.headers.id;
    const database = this.commandDatabase(envelope.metadata.headers.type);
    return async (binding, method, message) => {
      const outcomes = this.provider(database).commandOutcomes;
      const name = binding.record.kind === 'commandHandler' ? (message as object).constructor.name : envelope.metadata.headers.type;
      let result: unknown;
      try {
        result = await this.invokeBinding(binding, method, message);
      } catch (error) {
        if (isPermanentError(error)) await outcomes.complete(null, commandId, refused(error));
        throw error;
      }
      const tx = await this.activeUnitOfWork()!.transactionFor(database);
      await outcomes.complete(tx, commandId, succeeded(result, name));
      return result;
    };
  }

  /**
   * Handlers are called as they are; a projector first holds its projection's status (the rebuild
   * barrier); a process manager gets its instance loaded and stored around the call.
   */
  private readonly invokeBinding = async (binding: HandlerBinding, method: string, message: unknown): Promise<unknown> => {
    await this.projectionBarrier.enter(binding);
    if (binding.record.kind !== 'processManager') return invokeHandler(binding.cls, method, message);
    return runProcessManager(this.processManagerHost, binding.cls, method, message);
  };

  private get processManagerHost(): ProcessManagerHost {
    const config = this.require('running a process manager');
    return {
      domainName: this.domain.name,
      registry: this.domain.registry,
      outboxEnabled: this.outboxEnabled,
      outboxConfig: config.outbox,
      eventProcessing: config.event_processing,
      clock: this.domain.clock,
      stateStore: () => ({ store: this.provider(config.event_store.database).eventStore, provider: config.event_store.database }),
      transitions: this.transitions,
      provider: (name) => this.provider(name),
      activeUnitOfWork: () => this.activeUnitOfWork(),
      messageContext: () => currentMessageContext(),
    };
  }

  /**
   * Runs `work` (a raw subscriber's `receive`) for a delivered envelope in a fresh unit of work,
   * once: through the subscription's inbox when it is on, like `handleMessage` does for handlers.
   * With `handler` (who `work` is), it runs in a `protean.handler.execute` span; a subscription
   * only stepping its inbox over a message passes none.
   */
  async runOnce(
    envelope: MessageEnvelope,
    inbox: NonNullable<HandleMessageOptions['inbox']>,
    work: () => Promise<unknown>,
    handler?: { name: string; kind: string },
  ): Promise<HandleOutcome> {
    this.require('handling a message');
    const metadata = envelope?.metadata?.domain ? envelope.metadata : undefined;
    const host = {
      freshUnitOfWork: (w: () => Promise<unknown>, context: Partial<MessageContext>) => this.freshUnitOfWork(w, context),
      ...(this.inbox ? { enterInbox: (entry: InboxEntry) => this.enterInbox(entry) } : {}),
    };
    const run = async (span?: Span) => {
      const outcome = await runOnceInInbox(host, envelope, inbox, contextOf(metadata), work);
      span?.setAttribute(SpanAttributes.handlerOutcome, outcome);
      return outcome;
    };
    if (!handler) return run();
    return inHandlerSpan(metadata, { ...handler, consumerGroup: inbox.subscription }, run);
  }

  /** The inbox subscriptions record handled messages in; null when `[inbox] enabled = false`. */
  get inbox(): InboxStore | null {
    const config = this.require('using the inbox');
    return config.inbox.enabled ? this.provider(config.inbox.database).inbox : null;
  }

  /** Enters the inbox in the active unit of work (handlers' subscriptions, a projection rebuild). */
  async enterInbox(entry: InboxEntry): Promise<InboxVerdict> {
    const uow = this.activeUnitOfWork();
    if (!uow) throw new TransactionStateError('The inbox can only be entered inside a unit of work');
    const database = this.require('using the inbox').inbox.database;
    return this.provider(database).inbox.enter(await uow.transactionFor(database), entry);
  }

  // --- hosts handed to the unit of work and repositories ---------------------------------------

  private readonly unitHost = {
    domainName: this.domain.name,
    provider: (name: string) => this.provider(name),
    outboxRowsFor: (aggregate: BaseAggregate, schema: AggregateSchema, events: readonly BaseEvent[]): NewOutboxRow[] => {
      if (!this.outboxEnabled) return [];
      const category = this.domain.registry.streamCategoryOf(schema.aggregate);
      return outboxRowsForEvents({ aggregateStream: `${category}-${aggregate.id}`, events }, this.config.outbox);
    },
  };

  /** Holds a projector's projection status in its unit of work; refuses while the projection is rebuilt. */
  readonly projectionBarrier = new ProjectionBarrier({
    registry: () => this.domain.registry,
    provider: (name) => this.provider(name),
    activeUnitOfWork: () => this.activeUnitOfWork(),
  });

  private readonly repositoryHost = {
    provider: (name: string) => this.provider(name),
    activeUnitOfWork: () => this.activeUnitOfWork(),
    uow: <R>(work: () => Promise<R>) => this.uow(work),
  };

  private readonly eventSourcedRepositoryHost: EventSourcedRepositoryHost = {
    ...this.repositoryHost,
    eventStore: () => {
      const database = this.config.event_store.database;
      return { store: this.provider(database).eventStore, provider: database };
    },
    deserializeEvent: (envelope: MessageEnvelope) => deserializeMessage<BaseEvent>(this.domain, envelope, { requireChecksum: true }),
    streamCategoryOf: (aggregate: ClassRef) => this.domain.registry.streamCategoryOf(aggregate),
    snapshotType: (aggregate: ClassRef) => `${this.domain.name}.${aggregate.name}.v1`,
    snapshotThreshold: () => this.config.snapshot_threshold,
  };

  private readonly committedListeners = new Set<CommittedEventsListener>();

  /**
   * Calls `listener` with the events of every unit of work of this domain that commits (in raise
   * order, before sync handlers run); returns the function that removes it. The testing kit's
   * `captureEvents` is built on it.
   */
  onCommitted(listener: CommittedEventsListener): () => void {
    this.committedListeners.add(listener);
    return () => {
      this.committedListeners.delete(listener);
    };
  }

  private async afterCommit(events: BaseEvent[]): Promise<void> {
    if (events.length) for (const listener of this.committedListeners) listener(events);
    if (this.loadedConfig?.event_processing !== 'sync') return;
    await dispatchCommittedEvents(
      {
        handlersFor: (type) => this.domain.handlersFor(type),
        freshUnitOfWork: (work, context) => this.freshUnitOfWork(work, context),
        log: this.log,
        invoke: this.invokeBinding,
      },
      events,
    );
  }

  private checkAggregateProviders(config: DomainConfig, file: string | null): void {
    const aggregates = this.domain.registry.recordsOf('aggregate');
    // An event-sourced aggregate without a provider option lives in the event store's database.
    const named = aggregates.filter((record) => !record.options.isEventSourced || record.options.providerGiven);
    const problems = named
      .filter((record) => !(record.options.provider in config.databases))
      .map((record) => ({
        path: `databases.${record.options.provider}`,
        message: `aggregate ${record.name} uses database "${record.options.provider}", which is not configured; add a [databases.${record.options.provider}] table or change its provider option`,
      }));
    // Events and their outbox rows commit in one transaction only when both live in one database.
    const store = config.event_store.database;
    for (const record of named) {
      if (!record.options.isEventSourced || record.options.provider === store) continue;
      const fix =
        config.event_store.database_uri !== undefined
          ? `remove ${record.name}'s provider option (event-sourced aggregates live in the event store's own database, event_store.database_uri), or keep the events in "${record.options.provider}" with event_store.database instead of database_uri`
          : `set event_store.database = "${record.options.provider}", or remove ${record.name}'s provider option (or give it provider: "${store}")`;
      problems.push({
        path: 'event_store.database',
        message: `event-sourced aggregate ${record.name} names database "${record.options.provider}", but the event store is in "${store}"; its events and their outbox rows must share one transaction, so ${fix}`,
      });
    }
    problems.push(...projectionProviderProblems(this.domain.registry, config));
    if (problems.length) throw new ConfigError(problems, file);
  }

  private require(operation: string): DomainConfig {
    if (this.state !== 'ready' || !this.loadedConfig) throw new DomainNotInitializedError(this.domain.name, operation);
    return this.loadedConfig;
  }
}

/** A queued command whose sender asked for its outcome (`awaitOutcome` or an idempotency key). */
function recordsOutcome(envelope: MessageEnvelope): boolean {
  return envelope?.metadata?.domain?.kind === 'COMMAND' && envelope.metadata.extensions?.[OUTCOME_EXTENSION] === true;
}
