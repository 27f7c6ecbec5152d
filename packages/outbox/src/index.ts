/**
 * @protean-ts/outbox: relays the transactional outbox to brokers. One `OutboxProcessor` per
 * database × target broker claims committed rows, publishes them in order per partition key, and
 * records the outcome; `createOutboxProcessors` builds them all for a domain.
 */
export { OutboxProcessor } from './outbox-processor.js';
export type { OutboxProcessorOptions } from './outbox-processor-options.js';
export type { TickResult } from './tick-result.js';
export type { OutboxProcessorMetrics, OutboxProcessorState, OutboxProcessorTotals } from './outbox-processor-metrics.js';
export { createOutboxProcessors, type OutboxProcessorHost, type CreateOutboxProcessorsOptions } from './create-outbox-processors.js';
export { outboxProcessorName } from './outbox-processor-name.js';
export { computeBackoff, checkRetryConfig } from './compute-backoff.js';
export { isBrokerOutage } from './broker-outage.js';
export { OutboxConfigError } from './outbox-config.error.js';
export { MAX_CHECKED_STREAMS, type LaggingGroup, type RelayBackPressureStatus } from './relay-back-pressure.js';
export type { BackoffSchedule } from './backoff-schedule.js';
export { newWorkerId } from './worker-id.js';
