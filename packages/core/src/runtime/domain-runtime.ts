/**
 * The runtime half of a Domain and its lifecycle: `init()` loads domain.toml, checks that the
 * model's databases are configured and opens databases and brokers; `close()` closes them. The
 * work is done by its parts, each given this runtime only as a RuntimeContext: units of work,
 * repositories, command dispatch, message dispatch, the committed-event hooks and the binding
 * invocation they share. `domain.runtime` shows its named parts as the RuntimeSurface.
 */
import '../adapters/memory/index.js';
import '../adapters/inline/index.js';
import { closeInfrastructure, openInfrastructure } from '../adapters/registry-connect.js';
import type { DomainConfig } from '../config/config-types.js';
import { deepMerge } from '../config/deep-merge.js';
import { loadConfigWithAdapters, type ConfigOverrides } from '../config/load-config.js';
import { outboxEnabled } from '../config/outbox-enabled.js';
import type { Clock } from '../ports/clock.js';
import { DomainNotInitializedError } from '../errors/domain-not-initialized.error.js';
import { getLogger, type Logger } from '../logging/logger.js';
import type { MessageTypeLookup } from '../messages/deserialize-message.js';
import type { Broker } from '../ports/broker.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { ElementRegistry } from '../registry/registry.js';
import { currentMessageContext } from '../uow/uow-storage.js';
import { BindingInvocation } from './binding-invocation.js';
import { CommandDispatch } from './command-dispatch.js';
import { CommittedEvents } from './committed-events.js';
import type { InitOptions } from './init-options.js';
import { MessageDispatch } from './message-dispatch.js';
import { checkAggregateProviders } from './provider-checks.js';
import type { RuntimeContext, RuntimeOwner } from './runtime-context.js';
import { RuntimeInfrastructure } from './runtime-infrastructure.js';
import { RuntimeRepositories } from './runtime-repositories.js';
import type { RuntimeSurface } from './runtime-surface.js';
import { RuntimeUnits } from './runtime-units.js';

type RuntimeState = 'new' | 'initializing' | 'ready' | 'closed';

export class DomainRuntime implements RuntimeContext, RuntimeSurface {
  readonly log: Logger;
  readonly domainName: string;
  readonly registry: ElementRegistry;
  readonly messageTypes: MessageTypeLookup;
  private state: RuntimeState = 'new';
  private starting: Promise<void> | undefined;
  private current: DomainConfig | undefined;

  readonly infrastructure: RuntimeInfrastructure;
  readonly events: CommittedEvents;
  readonly units: RuntimeUnits;
  readonly projections: BindingInvocation;
  readonly commands: CommandDispatch;
  readonly messages: MessageDispatch;
  readonly repositories: RuntimeRepositories;

  constructor(private readonly owner: RuntimeOwner) {
    this.domainName = owner.name;
    this.registry = owner.registry;
    this.messageTypes = owner;
    this.log = getLogger('domain', { domain: owner.name });
    this.infrastructure = new RuntimeInfrastructure(owner.registry, (operation) => this.require(operation));
    this.events = new CommittedEvents(
      this,
      () => this.units,
      (binding, method, message) => this.projections.invoke(binding, method, message),
    );
    this.units = new RuntimeUnits(this, this.events.afterCommit);
    this.projections = new BindingInvocation(this, this.units);
    this.commands = new CommandDispatch(this, this.units);
    this.messages = new MessageDispatch(this, this.units, this.commands, this.projections.invoke);
    this.repositories = new RuntimeRepositories(this, this.units);
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
        searchFrom: this.owner.root,
        overrides: deepMerge<ConfigOverrides>({}, this.owner.options.config ?? {}, options.config ?? {}),
      });
      for (const warning of loaded.warnings) this.log.warn(warning, { file: loaded.file });
      this.registry.checkIdentityStrategy(loaded.config.identity_strategy);
      checkAggregateProviders(this.registry, loaded.config, loaded.file);
      this.infrastructure.opened = await openInfrastructure(loaded.config, this.log, { connect: options.connect ?? true });
      this.current = loaded.config;
      this.infrastructure.file = loaded.file;
      this.registry.setMessageContextProvider(() => (this.units.active() ? currentMessageContext() : undefined));
      this.state = 'ready';
      this.log.info('domain initialized', {
        file: loaded.file,
        outbox: this.outboxEnabled,
        databases: [...this.infrastructure.opened.providers.keys()],
        brokers: [...this.infrastructure.opened.brokers.keys()],
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
    this.registry.setMessageContextProvider(undefined);
    await closeInfrastructure(this.infrastructure.opened, this.log);
    this.repositories.clear();
    this.projections.transitions.clear();
    this.log.info('domain closed');
    this.state = 'new';
  }

  // --- the RuntimeContext its parts see ----------------------------------------------------------

  require(operation: string): DomainConfig {
    if (this.state !== 'ready' || !this.current) throw new DomainNotInitializedError(this.domainName, operation);
    return this.current;
  }

  loadedConfig(): DomainConfig | undefined {
    return this.current;
  }

  provider(name: string): DatabaseProvider {
    return this.infrastructure.provider(name);
  }

  databaseNames(): string[] {
    return [...this.infrastructure.opened.providers.keys()];
  }

  get outboxEnabled(): boolean {
    return outboxEnabled(this.require('reading domain.outboxEnabled'));
  }

  get clock(): Clock {
    return this.owner.clock;
  }

  // --- what the Domain reads -------------------------------------------------------------------

  get config(): DomainConfig {
    return this.require('reading domain.config');
  }

  get providers(): ReadonlyMap<string, DatabaseProvider> {
    this.require('reading domain.providers');
    return this.infrastructure.opened.providers;
  }

  get brokers(): ReadonlyMap<string, Broker> {
    this.require('reading domain.brokers');
    return this.infrastructure.opened.brokers;
  }
}
