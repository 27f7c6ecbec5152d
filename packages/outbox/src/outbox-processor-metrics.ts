/** The snapshot `OutboxProcessor.metrics()` returns, for health endpoints and `protean-ts` commands. */
import type { RelayBackPressureStatus } from './relay-back-pressure.js';

export type OutboxProcessorState = 'new' | 'running' | 'broker-unavailable' | 'database-unavailable' | 'stopping' | 'stopped';

export interface OutboxProcessorTotals {
  /** Messages this processor published and recorded as published. */
  published: number;
  /** Message-level failures (each counted one attempt). */
  failed: number;
  /** Rows this processor abandoned (each also logged at WARN and handed to `domain.onAbandoned`). */
  abandoned: number;
  /** Of `abandoned`, those abandoned because `outbox.retry.max_total_seconds` had passed. */
  abandonedPastMaxTotalSeconds: number;
  /** Abandoned-message listener calls that threw, rejected or ran past their time limit. */
  abandonAlertsFailed: number;
  /** Abandoned-message alerts not delivered because 1000 listener calls were still running. */
  abandonAlertsDropped: number;
  /** Rows given back untouched (broker unreachable, or stopping). */
  released: number;
  /** Rows whose lock another worker took over before this one recorded them (never an attempt). */
  lostLocks: number;
  batches: number;
  ticks: number;
  cleanedPublished: number;
  cleanedAbandoned: number;
}

export interface OutboxProcessorMetrics {
  name: string;
  targetBroker: string;
  workerId: string;
  state: OutboxProcessorState;
  /** Row counts for this processor's broker; null when the database could not be asked. */
  pending: number | null;
  processing: number | null;
  failed: number | null;
  abandoned: number | null;
  /** Rows waiting for their due time (`deliver_at`); absent when the counts could not be read. */
  scheduled?: number | null;
  oldestPendingAgeMs: number | null;
  /** Rows this processor holds right now (claimed, not yet recorded); their locks are being renewed. */
  heldRows: number;
  /** Back-pressure (`outbox.max_consumer_lag`): whether the relay holds back, and the group furthest behind; null when off. */
  backPressure: RelayBackPressureStatus | null;
  /** Average over the last minute. */
  publishedPerSecond: number;
  totals: OutboxProcessorTotals;
  /** Why the counts are null, when they are. */
  countsError?: string;
}
