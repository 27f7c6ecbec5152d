/**
 * `domain.runtime`: what the server, the cli and the testing kit use of a Domain's runtime, in
 * named parts. It is the whole of the runtime other packages may touch (docs/architecture.md,
 * "The runtime's surface"); the classes behind it in runtime/ are internal to core.
 */
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { Broker } from '../ports/broker.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { InboxEntry, InboxStore, InboxVerdict } from '../ports/inbox-store.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageContext } from '../elements/element-host.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { HandleMessageOptions, HandleOutcome } from '../processing/message-handling.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';

/** Receives the events a unit of work committed. */
export type CommittedEventsListener = (events: readonly BaseEvent[]) => void;

/** Where a delivered message stands in its subscription's inbox (`subscription`, broker id, `jumpGap`). */
export type InboxPlace = NonNullable<HandleMessageOptions['inbox']>;

export interface RuntimeSurface {
  /** True between `domain.init()` and `domain.close()`; every part below needs it. */
  readonly isReady: boolean;
  readonly infrastructure: RuntimeInfrastructure;
  readonly messages: RuntimeMessages;
  readonly commands: RuntimeCommands;
  readonly units: RuntimeUnits;
  readonly events: RuntimeEvents;
  readonly projections: RuntimeProjections;
}

/** The databases and brokers domain.toml configured, and what `db setup` creates in them. */
export interface RuntimeInfrastructure {
  /** The domain.toml that was loaded, or null when defaults and overrides alone apply. */
  readonly configFile: string | null;
  /** Database `name`; a ConfigError naming the missing `[databases.<name>]` table otherwise. */
  provider(name: string): DatabaseProvider;
  /** Broker `name`; a ConfigError naming the missing `[brokers.<name>]` table otherwise. */
  broker(name: string): Broker;
  /** Every aggregate stored as rows, and every projection (event-sourced aggregates have no table). */
  aggregateSchemas(): AggregateSchema[];
  /** Every projection. */
  projectionSchemas(): AggregateSchema[];
}

/** Running delivered messages once, through the subscriptions' inbox. */
export interface RuntimeMessages {
  /** The inbox subscriptions record handled messages in; null when `[inbox] enabled = false`. */
  readonly inbox: InboxStore | null;
  /** Enters the inbox in the active unit of work (a TransactionStateError outside one). */
  enterInbox(entry: InboxEntry): Promise<InboxVerdict>;
  /**
   * Runs `work` (a raw subscriber's `receive`) for a delivered envelope in a fresh unit of work,
   * once: through the subscription's inbox when it is on, like `domain.handleMessage` does for
   * handlers. With `handler` (who `work` is), it runs in a `protean.handler.execute` span; a
   * subscription only stepping its inbox over a message passes none.
   */
  runOnce(envelope: MessageEnvelope, inbox: InboxPlace, work: () => Promise<unknown>, handler?: { name: string; kind: string }): Promise<HandleOutcome>;
}

/** Where asynchronous commands are queued and their outcomes recorded. */
export interface RuntimeCommands {
  /** The database a command (its class or message type) is queued in and its outcome recorded in. */
  database(command: ClassRef | string): string;
  /** Every database some registered command is queued in (where their outcomes are cleaned up). */
  databases(): string[];
  /**
   * A subscription gave up on `envelope` (its retries ran out, or it failed for good): a command
   * whose sender waits for its outcome gets this error as its refusal. Anything else is ignored.
   */
  recordGivenUp(envelope: MessageEnvelope, error: unknown): Promise<void>;
}

/** Units of work of this domain. */
export interface RuntimeUnits {
  /** Runs `work` in a unit of work (joining the active one), with `context` as its message context. */
  /** `lane`: the priority lane of the events raised in it (UnknownLaneError, LaneConflictError). */
  run<R>(work: () => Promise<R> | R, context?: Partial<MessageContext>, lane?: string): Promise<R>;
  /** A new unit of work even inside another one: each handler call gets its own. */
  fresh<R>(work: () => Promise<R> | R, context?: Partial<MessageContext>): Promise<R>;
  /** The active unit of work of this domain, if any. */
  active(): UnitOfWork | undefined;
}

export interface RuntimeEvents {
  /**
   * Calls `listener` with the events of every unit of work of this domain that commits (in raise
   * order, before sync handlers run); returns the function that removes it. The testing kit's
   * `captureEvents` is built on it.
   */
  onCommitted(listener: CommittedEventsListener): () => void;
}

export interface RuntimeProjections {
  /**
   * Holds the projection status of `projector`'s projection in the active unit of work, as a
   * projector's handling does first; a ProjectionRebuildingError while the projection is rebuilt.
   */
  enterBarrier(projector: ClassRef): Promise<void>;
}
