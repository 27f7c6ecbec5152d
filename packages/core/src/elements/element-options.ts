/**
 * Declarative options per element type, as passed to `@domain.aggregate({...})` or
 * `domain.register(Class, {...})`. Defaults are applied in one place (the registry), never ad hoc.
 */
import type { ClassRef } from '../fields/field-definition.js';

export interface AggregateOptions {
  /**
   * Name of the `[databases.<name>]` this aggregate lives in. Default `default`; for an
   * event-sourced aggregate, the event store's database (`[event_store]`), the only one it may name.
   */
  provider?: string;
  /** Stream category; default `<domain_snake>::<aggregate_snake>`. */
  streamCategory?: string;
  /** Table/collection name for persistence adapters; default the aggregate's snake_case name. */
  schemaName?: string;
  /**
   * Stored as its events in the event store instead of as a row: state changes only through
   * `@apply(Event)` methods, and `raise` applies the event. Default false.
   */
  eventSourced?: boolean;
}

export interface EntityOptions {
  partOf: ClassRef;
  schemaName?: string;
}

export interface ValueObjectOptions {
  partOf?: ClassRef;
}

export interface MessageOptions {
  /** The aggregate this event or command belongs to. */
  partOf?: ClassRef;
  /** Schema version, used in the message type `<Domain>.<Class>.v<N>`. Default 1. */
  version?: number;
  /** Also relay this event to every `outbox.external_brokers` entry. Default false. */
  published?: boolean;
  /** Defaults to the partOf aggregate's category. */
  streamCategory?: string;
  /**
   * The priority lane it travels in unless its producer names one (`domain.process(cmd, { lane })`,
   * `domain.uow(work, { lane })`): `'live'` (the default) or a lane of `[outbox.lanes] names`.
   */
  lane?: string;
  /** Registration name when it differs from the class name. */
  name?: string;
}

export interface HandlerOptions {
  /** The aggregate whose stream this handler follows; gives the default stream category. */
  partOf?: ClassRef;
  /**
   * The stream category to subscribe to: a string, or an aggregate class meaning that
   * aggregate's category. Required when there is no partOf.
   */
  streamCategory?: string | ClassRef;
  /** Name of the subscription's consumer group; default the class name. */
  subscriptionName?: string;
  /**
   * Event handlers only: read the events from broker streams (`'stream'`, fed by the outbox) or
   * from the event store's category (`'event_store'`, for event-sourced aggregates). Default:
   * `server.default_subscription_type`.
   */
  subscriptionType?: 'stream' | 'event_store';
  /**
   * Handle each message in a transaction of its own even when the subscription batches
   * (`[server.stream_subscription] batch_size` > 1): for a handler that calls out (an HTTP
   * API, a mailer) while its transaction is open, or uses MikroORM's EntityManager.
   */
  ownTransaction?: boolean;
}

export interface SubscriberOptions {
  /** Broker stream (or topic) read as raw messages. */
  stream: string;
  /** `[brokers.<name>]` to read from. Default `default`. */
  broker?: string;
}

export interface RepositoryOptions {
  partOf: ClassRef;
  /** Only used when this repository is for a given database provider name. */
  databaseProvider?: string;
}

export type ApplicationServiceOptions = { partOf?: ClassRef };

export interface QueryOptions {
  /** The aggregate whose data this query reads. Required. */
  partOf: ClassRef;
  /** Registration name when it differs from the class name. */
  name?: string;
}

export interface QueryHandlerOptions {
  /** The aggregate whose queries this handler answers. Required. */
  partOf: ClassRef;
}

export interface DomainServiceOptions {
  /** The aggregates the service's rules span: two or more. */
  partOf: readonly ClassRef[];
}

export interface ProcessManagerOptions {
  /** The aggregates whose events it follows (their stream categories). */
  aggregates?: readonly ClassRef[];
  /** Stream categories it follows besides those of `aggregates`. */
  streamCategories?: readonly string[];
  /** Consumer-group name of its subscriptions; default the class name. */
  subscriptionName?: string;
  /** Event-store category of its instances' transition streams; default `<domain_snake>::<manager_snake>`. */
  streamCategory?: string;
}

export interface ProjectionOptions {
  /** Name of the `[databases.<name>]` this read model is stored in. Default `default`. */
  provider?: string;
  /** Table/collection name; default the projection's snake_case name. */
  schemaName?: string;
}

export interface ProjectorOptions {
  /** The projection this projector writes. */
  projectorFor: ClassRef;
  /** The aggregates whose stream categories it follows (one subscription each). */
  aggregates?: ClassRef[];
  /** Stream categories it follows, instead of (or besides) `aggregates`. */
  streamCategories?: string[];
  /**
   * Read the events from broker streams (`'stream'`) or from the event store (`'event_store'`).
   * Default: `server.default_subscription_type`.
   */
  subscriptionType?: 'stream' | 'event_store';
}
