/**
 * What every subscription reports about itself: its state for health probes and the counters
 * the Engine logs on shutdown.
 */

export type SubscriptionState = 'idle' | 'starting' | 'running' | 'backing-off' | 'stopping' | 'stopped';

export interface SubscriptionStatus {
  name: string;
  /** `stream` (a handler reading a stream category) or `broker` (a subscriber of raw messages). */
  kind: 'stream' | 'broker';
  stream: string;
  group: string;
  broker: string;
  state: SubscriptionState;
  /** The last loop error (broker outage, a failed read), cleared by the next successful read. */
  lastError: string | null;
  handled: number;
  retried: number;
  deadLettered: number;
  /** Messages that stay pending because they failed and could not (or may not) be dead-lettered. */
  leftPending: number;
  skipped: number;
}

/** The part every subscription has in common, for the Engine and health checks. */
export interface Subscription {
  readonly name: string;
  start(): void;
  /** Stops reading, lets the message in flight finish (handler and ack), and resolves. */
  stop(): Promise<void>;
  /** Resolves when the read loop itself has ended (after `stop`, once a blocked read returns). */
  finished(): Promise<void>;
  status(): SubscriptionStatus;
}
