/**
 * The databases and brokers one initialized domain opened, looked up by name with errors that
 * name the missing domain.toml table, and the schemas `db setup` creates in them.
 */
import type { Infrastructure } from '../adapters/registry-connect.js';
import { ConfigError } from '../config/config-error.js';
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { Broker } from '../ports/broker.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import { buildAggregateSchema } from '../registry/aggregate-schema.js';
import type { ElementRegistry } from '../registry/registry.js';
import type { RuntimeInfrastructure as RuntimeInfrastructureSurface } from './runtime-surface.js';

export class RuntimeInfrastructure implements RuntimeInfrastructureSurface {
  /** Set by `init()`, emptied by `close()`. */
  opened: Infrastructure = { providers: new Map(), brokers: new Map() };
  file: string | null = null;

  constructor(
    private readonly registry: ElementRegistry,
    /** Throws DomainNotInitializedError naming `operation` unless the domain is initialized. */
    private readonly requireReady: (operation: string) => void,
  ) {}

  get configFile(): string | null {
    this.requireReady('reading domain.configFile');
    return this.file;
  }

  provider(name: string): DatabaseProvider {
    this.requireReady(`using database "${name}"`);
    const provider = this.opened.providers.get(name);
    if (!provider) throw this.notConfigured('databases', 'database', name, this.opened.providers);
    return provider;
  }

  broker(name: string): Broker {
    this.requireReady(`using broker "${name}"`);
    const broker = this.opened.brokers.get(name);
    if (!broker) throw this.notConfigured('brokers', 'broker', name, this.opened.brokers);
    return broker;
  }

  aggregateSchemas(): AggregateSchema[] {
    const rows = this.registry
      .recordsOf('aggregate')
      .filter((record) => !record.options.isEventSourced)
      .map((record) => buildAggregateSchema(this.registry, record.cls as ClassRef<BaseAggregate>));
    // Projections are stored as rows too (`db setup` creates their tables).
    return [...rows, ...this.projectionSchemas()];
  }

  projectionSchemas(): AggregateSchema[] {
    return this.registry.recordsOf('projection').map((record) => buildAggregateSchema(this.registry, record.cls as ClassRef<BaseAggregate>));
  }

  private notConfigured(section: string, what: string, name: string, configured: ReadonlyMap<string, unknown>): ConfigError {
    return new ConfigError(
      [
        {
          path: `${section}.${name}`,
          message: `${what} "${name}" is not configured; add a [${section}.${name}] table (configured: ${[...configured.keys()].join(', ')})`,
        },
      ],
      this.file,
    );
  }
}
