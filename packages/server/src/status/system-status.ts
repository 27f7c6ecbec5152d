/**
 * The shape of `collectStatus`: what the outbox of each database holds and how far behind each
 * subscription is. `protean-ts status --json` prints exactly this, so it is a stable contract
 * (docs/observability.md, Status): fields are only ever added.
 */
import type { OutboxCounts } from '@protean-ts/core';
import type { PlannedSubscription } from '../subscriptions/subscription-plan.js';

export interface SystemStatus {
  /** When the status was read (ISO 8601). */
  takenAt: string;
  outboxes: OutboxReport[];
  subscriptions: SubscriptionBacklog[];
  /** One per process manager of the domain (empty when it has none). */
  processManagers: ProcessManagerReport[];
  /** With `outbox.max_consumer_lag` on: one per broker the outbox relays to (see docs/flow-control.md, Back-pressure). */
  relays?: RelayPressureReport[];
}

/** Whether the outbox relay to one broker holds back for a lagging consumer group. */
export interface RelayPressureReport {
  broker: string;
  maxConsumerLag: number;
  /** True when the group furthest behind has more than `maxConsumerLag` messages not finished. */
  heldBack: boolean;
  /** That group, on the streams the domain's subscriptions read on this broker; null when none has a group. */
  worst: { stream: string; group: string; behind: number } | null;
  /** Set when the lag could not be read. */
  error?: string;
}

/** A process manager's instances (from its transition streams) and timeouts (from the outbox). */
export interface ProcessManagerReport {
  /** The manager's name. */
  processManager: string;
  /** The event-store category of its transition streams. */
  category: string;
  /** Instances started and not completed; null when not counted (`transitionsCapped`, or an error). */
  instances: number | null;
  /** Instances completed; null when not counted. */
  ended: number | null;
  /** True when the manager has more transitions than a status call reads: the counts are then null. */
  transitionsCapped: boolean;
  /** Timeouts scheduled and not yet sent (`scheduled` outbox rows). */
  dueTimeouts: number;
  /** Of those, the ones whose time has come (the outbox processor has not sent them yet). */
  pastDueTimeouts: number;
  /** True when the outbox held more scheduled rows than a status call reads (the timeout counts are then "at least"). */
  timeoutsCapped: boolean;
  /** Set when the stores could not be read. */
  error?: string;
}

/** One managed database's outbox: rows by status and the age of the oldest pending or failed row. */
export interface OutboxReport extends Partial<OutboxCounts> {
  database: string;
  /** The provider kind and masked URI, for people. */
  label: string;
  /** Set when the outbox could not be read (the counts are then absent). */
  error?: string;
}

export type SubscriptionBacklog = StreamSubscriptionBacklog | EventStoreSubscriptionBacklog;

interface BacklogBase {
  /** The subscription name (its consumer group). */
  subscription: string;
  role: PlannedSubscription['role'];
  /** The handler, subscriber, process manager or projector class. */
  handler: string;
  /** Set when the backlog could not be read (the numbers are then absent or partial). */
  error?: string;
}

/** A handler or subscriber reading a broker stream through a consumer group. */
export interface StreamSubscriptionBacklog extends BacklogBase {
  source: 'stream';
  /** Workers whose circuit breaker of this subscription is open or half-open, as they last recorded it (see docs/flow-control.md). */
  circuits?: { worker: string; state: 'open' | 'half-open'; opened: number; lastError: string | null; changedAt: string }[];
  broker: string;
  stream: string;
  /**
   * Present when the stream is split into partitions (`outbox.partitions` > 1 on the outbox
   * broker): how many. `stream` and `stream#1`… each have their own group and dead letters; the
   * numbers below are their sums.
   */
  partitions?: number;
  /** False while the group does not exist yet (no server has started it); partitioned: on some partition. */
  exists: boolean;
  /** Messages in the stream not yet delivered to the group; null when the broker cannot tell. */
  lag: number | null;
  /** Delivered to a consumer of the group and not acked yet. */
  pending: number;
  /**
   * Present (true) when the broker reports only the unacked deliveries of the process asking
   * (RabbitMQ without `management_uri`): `pending` then counts this process's, and the group's
   * true count is unknown.
   */
  pendingLocalOnly?: true;
  /** Consumers registered in the group (partitioned: a worker counts once per partition it reads); null when the broker cannot tell. */
  consumers: number | null;
  /** The group's dead letters; null when the broker keeps none. */
  deadLetters: number | null;
  /** Messages the group lost to a hard stream length limit (Redis `maxlen_hard`). */
  lostToTrimming: number;
}

/** An event handler reading its category from the event store with a cursor. */
export interface EventStoreSubscriptionBacklog extends BacklogBase {
  source: 'event_store';
  category: string;
  /** Events of the category after the subscription's cursor (at least this many when `behindCapped`). */
  behind: number;
  behindCapped: boolean;
  deadLetters: number;
  cursor: { transactionId: number; globalPosition: number };
  /** The worker holding the lease, null when no worker reads it. */
  owner: string | null;
  leaseExpiresAt: string | null;
}
