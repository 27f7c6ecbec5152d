/**
 * The one place each element type's defaults are applied: provider `default`, stream category
 * `<domain_snake>::<aggregate_snake>`, snake_case schema names, message version 1, and so on.
 */
import { LANE_NAME } from '../config/check-lanes.js';
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
import { RegistrationError } from '../errors/registration.error.js';
import type { ElementRecord } from './element-record.js';
import { snakeCase } from './naming.js';
import { resolveProjectorRecord } from './projector-defaults.js';

export interface ElementOptionsByKind {
  aggregate: AggregateOptions;
  entity: EntityOptions;
  valueObject: ValueObjectOptions;
  event: MessageOptions;
  command: MessageOptions;
  commandHandler: HandlerOptions;
  eventHandler: HandlerOptions;
  applicationService: ApplicationServiceOptions;
  repository: RepositoryOptions;
  subscriber: SubscriberOptions;
  query: QueryOptions;
  queryHandler: QueryHandlerOptions;
  domainService: DomainServiceOptions;
  processManager: ProcessManagerOptions;
  projection: ProjectionOptions;
  projector: ProjectorOptions;
}

export function defaultStreamCategory(domainName: string, aggregateName: string): string {
  return `${snakeCase(domainName)}::${snakeCase(aggregateName)}`;
}

function nonEmpty(value: string | undefined, what: string, cls: ClassRef): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    throw new RegistrationError(`${cls.name}: ${what} must be a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}

/** Builds the record of `cls` registered as `kind`, with every default filled in. */
export function resolveRecord<K extends ElementKind>(kind: K, cls: ClassRef, given: ElementOptionsByKind[K] | undefined, domainName: string): ElementRecord {
  const o = (given ?? {}) as Record<string, unknown>;
  const name = cls.name;
  switch (kind) {
    case 'aggregate': {
      const a = o as AggregateOptions;
      return {
        kind,
        cls,
        name,
        options: {
          provider: nonEmpty(a.provider, 'provider', cls) ?? 'default',
          providerGiven: a.provider !== undefined,
          streamCategory: nonEmpty(a.streamCategory, 'streamCategory', cls) ?? defaultStreamCategory(domainName, name),
          schemaName: nonEmpty(a.schemaName, 'schemaName', cls) ?? snakeCase(name),
          isEventSourced: a.eventSourced === true,
        },
      };
    }
    case 'entity': {
      const e = o as Partial<EntityOptions>;
      return { kind, cls, name, options: { partOf: e.partOf, schemaName: nonEmpty(e.schemaName, 'schemaName', cls) ?? snakeCase(name) } };
    }
    case 'valueObject':
    case 'applicationService':
      return { kind, cls, name, options: { partOf: (o as ValueObjectOptions).partOf } };
    case 'event':
    case 'command': {
      const m = o as MessageOptions;
      const version = m.version ?? 1;
      if (!Number.isInteger(version) || version < 1) throw new RegistrationError(`${name}: version must be an integer >= 1, got ${String(m.version)}`);
      if (m.lane !== undefined && (typeof m.lane !== 'string' || !LANE_NAME.test(m.lane))) {
        throw new RegistrationError(
          `${name}: lane must be a lane name such as 'live' or 'backfill' (lower-case letters, digits, _), got ${JSON.stringify(m.lane)}`,
        );
      }
      return {
        kind,
        cls,
        name: nonEmpty(m.name, 'name', cls) ?? name,
        options: {
          partOf: m.partOf,
          version,
          published: m.published === true,
          streamCategory: nonEmpty(m.streamCategory, 'streamCategory', cls),
          lane: m.lane,
        },
      };
    }
    case 'commandHandler':
    case 'eventHandler': {
      const h = o as HandlerOptions;
      const category = typeof h.streamCategory === 'string' ? nonEmpty(h.streamCategory, 'streamCategory', cls) : h.streamCategory;
      const subscriptionType = h.subscriptionType;
      if (subscriptionType !== undefined && subscriptionType !== 'stream' && subscriptionType !== 'event_store') {
        throw new RegistrationError(`${name}: subscriptionType must be 'stream' or 'event_store', got ${JSON.stringify(subscriptionType)}`);
      }
      if (kind === 'commandHandler' && subscriptionType === 'event_store') {
        throw new RegistrationError(`${name}: a command handler cannot read the event store (commands are not stored there); leave subscriptionType out`);
      }
      if (h.ownTransaction !== undefined && typeof h.ownTransaction !== 'boolean') {
        throw new RegistrationError(`${name}: ownTransaction must be true or false, got ${JSON.stringify(h.ownTransaction)}`);
      }
      return {
        kind,
        cls,
        name,
        options: {
          partOf: h.partOf,
          streamCategory: category,
          subscriptionName: nonEmpty(h.subscriptionName, 'subscriptionName', cls) ?? name,
          subscriptionType,
          ownTransaction: h.ownTransaction === true,
        },
      };
    }
    case 'repository': {
      const r = o as Partial<RepositoryOptions>;
      return { kind, cls, name, options: { partOf: r.partOf as ClassRef, databaseProvider: nonEmpty(r.databaseProvider, 'databaseProvider', cls) } };
    }
    case 'subscriber': {
      const s = o as Partial<SubscriberOptions>;
      const stream = nonEmpty(s.stream, 'stream', cls);
      if (!stream) throw new RegistrationError(`${name}: a subscriber needs the broker stream it reads: @domain.subscriber({ stream: 'payments' })`);
      return { kind, cls, name, options: { stream, broker: nonEmpty(s.broker, 'broker', cls) ?? 'default' } };
    }
    case 'query': {
      const q = o as Partial<QueryOptions>;
      return { kind, cls, name: nonEmpty(q.name, 'name', cls) ?? name, options: { partOf: q.partOf } };
    }
    case 'queryHandler':
      return { kind, cls, name, options: { partOf: (o as Partial<QueryHandlerOptions>).partOf } };
    case 'domainService': {
      // A single class is kept as a list of one, so the model check can say it needs two.
      const partOf = (o as Partial<DomainServiceOptions>).partOf as unknown;
      return { kind, cls, name, options: { partOf: Array.isArray(partOf) ? [...partOf] : partOf === undefined ? [] : [partOf as ClassRef] } };
    }
    case 'processManager': {
      const p = o as ProcessManagerOptions;
      const aggregates = p.aggregates ?? [];
      const categories = p.streamCategories ?? [];
      if (!Array.isArray(aggregates))
        throw new RegistrationError(`${name}: aggregates must be an array of aggregate classes: @domain.processManager({ aggregates: [Order, Payment] })`);
      if (!Array.isArray(categories)) throw new RegistrationError(`${name}: streamCategories must be an array of strings, got ${JSON.stringify(categories)}`);
      categories.forEach((category, i) => nonEmpty(category, `streamCategories[${i}]`, cls));
      return {
        kind,
        cls,
        name,
        options: {
          partOf: undefined,
          streamCategory: undefined,
          subscriptionName: nonEmpty(p.subscriptionName, 'subscriptionName', cls) ?? name,
          subscriptionType: undefined,
          ownTransaction: false,
          aggregates: [...aggregates],
          streamCategories: [...categories],
          stateCategory: nonEmpty(p.streamCategory, 'streamCategory', cls) ?? defaultStreamCategory(domainName, name),
        },
      };
    }
    case 'projection': {
      const p = o as ProjectionOptions;
      return {
        kind,
        cls,
        name,
        options: { provider: nonEmpty(p.provider, 'provider', cls) ?? 'default', schemaName: nonEmpty(p.schemaName, 'schemaName', cls) ?? snakeCase(name) },
      };
    }
    case 'projector':
      return resolveProjectorRecord(cls, o as Partial<ProjectorOptions>);
    default:
      throw new RegistrationError(`${name}: unknown element kind "${String(kind)}"`);
  }
}
