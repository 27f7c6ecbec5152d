/**
 * What every subscription reports about itself: its state for health probes and the counters
 * the Engine logs on shutdown.
 */

import type { FlowStatus } from './flow/flow-gate.js';

/** `standby`: an event-store subscription whose lease another worker holds (healthy: it takes over when that worker stops). */
export type SubscriptionState = 'idle' | 'starting' | 'running' | 'standby' | 'backing-off' | 'stopping' | 'stopped';

/** What a subscription did with the messages it read, since it started. */
export interface SubscriptionCounters {
  handled: number;
  retried: number;
  deadLettered: number;
  /** Messages that stay pending because they failed and could not (or may not) be dead-lettered. */
  leftPending: number;
  /** Messages of types this handler does not handle (acked without work, in the key's order). */
  skipped: number;
  /** Redeliveries the inbox recognised as handled already (acked, not handled again). */
  duplicates: number;
  /** Messages handled after their position had been passed (out of order). */
  late: number;
  /** Times a message found its predecessor not handled yet and waited. */
  waits: number;
  /** Gaps let through after `gap_timeout_seconds` (logged at ERROR). */
  gapsPassed: number;
  /** Positions passed because the outbox abandoned their message (a marker took its place). */
  passedAbandoned: number;
  /** Failed messages acked without a dead letter: dead-lettering them failed up to the poison-pill bound (logged at ERROR). */
  dropped: number;
  /** Batched transactions committed (`batch_size` > 1) and the messages whose work they committed: their ratio is the mean batch size. */
  batches: number;
  batchedMessages: number;
}

export interface SubscriptionStatus extends SubscriptionCounters {
  name: string;
  /** `stream` (a handler reading a stream category), `broker` (a subscriber of raw messages) or `event_store` (a handler reading the event store). */
  kind: 'stream' | 'broker' | 'event_store';
  stream: string;
  group: string;
  broker: string;
  state: SubscriptionState;
  /** The last loop error (broker outage, a failed read), cleared by the next successful read. */
  lastError: string | null;
  /** Messages read and not finished (running, queued behind their key, or waiting). */
  inFlight: number;
  /**
   * Broker subscriptions: the read-ahead held in memory. `held` never exceeds `bound` (twice
   * `server.messages_per_tick`); `paused` while more than half a read is held, when reads wait for
   * the handlers (a subscription that falls behind stays paused).
   */
  readAhead?: { held: number; bound: number; paused: boolean };
  /** With `outbox.partitions` > 1: how many partitions the stream has, and which this process reads. */
  partitions?: { count: number; read: number[] };
  /** With `[outbox.lanes] enabled`: the lanes read besides live, each on `<stream>:<lane>` (and its partitions). */
  lanes?: string[];
  /** With a `[server.flow_control]` table: the circuit, the limits and debouncing (see docs/flow-control.md). */
  flow?: FlowStatus;
}

/** The part every subscription has in common, for the Engine and health checks. */
export interface Subscription {
  readonly name: string;
  start(): void;
  /** Stops reading, lets the messages being handled finish (handler and ack), gives the rest back, and resolves. */
  stop(): Promise<void>;
  /** Resolves when the read loop itself has ended (after `stop`, once a blocked read returns). */
  finished(): Promise<void>;
  status(): SubscriptionStatus;
}
