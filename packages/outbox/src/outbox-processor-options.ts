/** What an `OutboxProcessor` is built from: its store, broker, configuration and tuning knobs. */
import type { AbandonedMessageListener, Broker, Clock, Logger, OutboxConfig, OutboxStore } from '@protean-ts/core';
import type { BackoffSchedule } from './backoff-schedule.js';

export interface OutboxProcessorOptions {
  /** `outbox-processor-<db>-to-<broker>` (see `outboxProcessorName`). */
  name: string;
  store: OutboxStore;
  /** Rows whose `targetBroker` is this broker's name are relayed to it. */
  broker: Broker;
  config: OutboxConfig;
  /** Unique per process (and per processor in it): claims are locked under this id. */
  workerId: string;
  logger?: Logger;
  /**
   * Read at each abandonment (so listeners added later are heard): who to alert when a row is
   * abandoned. `createOutboxProcessors` passes `domain.abandonedListeners`.
   */
  abandonedListeners?: () => readonly AbandonedMessageListener[];
  /** How long one abandoned-message listener call may run before it is logged as hung. Default 5 s. */
  abandonListenerTimeoutMs?: number;
  /** Rows deleted per cleanup statement. Default 1000. */
  cleanupBatchSize?: number;
  /** Probing an unreachable broker. Default 100 ms doubling to 5 s. */
  brokerProbe?: BackoffSchedule;
  /** Retrying an unreachable database. Default 200 ms doubling to 10 s. */
  databaseRetry?: BackoffSchedule;
  /**
   * Claim → publish → record cycles kept in flight at once (default 1). More lanes overlap one
   * batch's database writes with the next one's broker round trip, which can pay off with a
   * distant broker; with a local Redis two lanes measured slower (they walk the same keys). Each
   * lane claims its share of `messages_per_tick`, so the processor never holds more rows than that,
   * and order per key is kept: a key whose head is in flight in one lane is skipped by the others.
   */
  lanes?: number;
  /**
   * The time retention, retry backoff and due times are decided by (`domain.clock`). Default: the
   * system clock. Pacing (poll intervals, lock renewal) and logged durations keep the real time.
   */
  clock?: Clock;
  /** Source of jitter, for tests. */
  random?: () => number;
}
