/**
 * What the registry keeps per element: its kind, class, registration name and options with
 * every default applied (see element-defaults.ts). Values derived from other elements (a
 * message's stream category from its aggregate) are resolved on lookup, since registration
 * order is free.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementKind } from '../elements/element-kind.js';

interface RecordOf<K extends ElementKind, O> {
  readonly kind: K;
  readonly cls: ClassRef;
  /** Registration name: the class name, or a message's `name` option. */
  readonly name: string;
  readonly options: Readonly<O>;
}

export type AggregateRecord = RecordOf<
  'aggregate',
  {
    provider: string;
    /** Whether `provider` was given: an event-sourced aggregate without one lives in the event store's database. */
    providerGiven: boolean;
    streamCategory: string;
    schemaName: string;
    isEventSourced: boolean;
  }
>;
export type EntityRecord = RecordOf<'entity', { partOf: ClassRef | undefined; schemaName: string }>;
export type ValueObjectRecord = RecordOf<'valueObject', { partOf: ClassRef | undefined }>;
export type MessageRecordOptions = {
  partOf: ClassRef | undefined;
  version: number;
  published: boolean;
  streamCategory: string | undefined;
  /** Its default priority lane; undefined: `live` (checked against `[outbox.lanes] names` when its rows are written). */
  lane: string | undefined;
};
export type EventRecord = RecordOf<'event', MessageRecordOptions>;
export type CommandRecord = RecordOf<'command', MessageRecordOptions>;
export type HandlerRecordOptions = {
  partOf: ClassRef | undefined;
  streamCategory: string | ClassRef | undefined;
  subscriptionName: string;
  /** As declared; undefined follows `server.default_subscription_type`. */
  subscriptionType: 'stream' | 'event_store' | undefined;
  /** Each message in a transaction of its own, even in a subscription that batches. */
  ownTransaction: boolean;
};
export type CommandHandlerRecord = RecordOf<'commandHandler', HandlerRecordOptions>;
export type EventHandlerRecord = RecordOf<'eventHandler', HandlerRecordOptions>;
export type ApplicationServiceRecord = RecordOf<'applicationService', { partOf: ClassRef | undefined }>;
export type RepositoryRecord = RecordOf<'repository', { partOf: ClassRef; databaseProvider: string | undefined }>;
export type SubscriberRecord = RecordOf<'subscriber', { stream: string; broker: string }>;
export type QueryRecord = RecordOf<'query', { partOf: ClassRef | undefined }>;
export type QueryHandlerRecord = RecordOf<'queryHandler', { partOf: ClassRef | undefined }>;
export type DomainServiceRecord = RecordOf<'domainService', { partOf: readonly ClassRef[] }>;
export type ProcessManagerRecord = RecordOf<
  'processManager',
  HandlerRecordOptions & {
    aggregates: readonly ClassRef[];
    /** Given categories; those of `aggregates` are resolved on lookup (registry.processManagerCategories). */
    streamCategories: readonly string[];
    /** Event-store category of the instances' transition streams. */
    stateCategory: string;
  }
>;
export type ProjectionRecord = RecordOf<'projection', { provider: string; schemaName: string }>;
export type ProjectorRecord = RecordOf<
  'projector',
  {
    projectorFor: ClassRef | undefined;
    aggregates: readonly ClassRef[];
    streamCategories: readonly string[];
    /** As declared; undefined follows `server.default_subscription_type`. */
    subscriptionType: 'stream' | 'event_store' | undefined;
  }
>;

export type ElementRecord =
  | AggregateRecord
  | EntityRecord
  | ValueObjectRecord
  | EventRecord
  | CommandRecord
  | CommandHandlerRecord
  | EventHandlerRecord
  | ApplicationServiceRecord
  | RepositoryRecord
  | SubscriberRecord
  | QueryRecord
  | QueryHandlerRecord
  | DomainServiceRecord
  | ProcessManagerRecord
  | ProjectionRecord
  | ProjectorRecord;

export type MessageRecord = EventRecord | CommandRecord;
export type HandlerRecord = CommandHandlerRecord | EventHandlerRecord | ProcessManagerRecord;

/** The record type of one kind: `RecordOfKind<'aggregate'>` is AggregateRecord. */
export type RecordOfKind<K extends ElementKind> = Extract<ElementRecord, { kind: K }>;
