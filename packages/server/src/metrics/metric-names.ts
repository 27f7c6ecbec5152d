/**
 * Every metric protean-ts reports, in one place: name, unit and description as OpenTelemetry
 * sees them (the Prometheus exporter derives `messaging_process_duration_seconds`,
 * `protean_outbox_published_total`… from these). Names follow the OpenTelemetry semantic
 * conventions for messaging where one applies; the rest are `protean.*`. docs/observability.md
 * lists them with their attributes.
 */

export interface MetricSpec {
  name: string;
  unit: string;
  description: string;
}

const spec = (name: string, unit: string, description: string): MetricSpec => ({ name, unit, description });

export const METRICS = {
  // Per process (summed over the workers of a supervisor).
  processDuration: spec(
    'messaging.process.duration',
    's',
    'Duration of one handler attempt on a message (a retried message records each attempt; error.type is set on a failed one)',
  ),
  consumedMessages: spec(
    'messaging.client.consumed.messages',
    '{message}',
    'Messages a subscription finished, by protean.outcome: handled, skipped (a type it does not handle), duplicate (the inbox had it), dead_lettered, dropped',
  ),
  retries: spec('protean.subscription.retries', '{attempt}', 'Handler attempts that failed and were retried'),
  circuitState: spec(
    'protean.subscription.circuit.state',
    '{state}',
    "State of the subscription's circuit breaker in this process: 0 closed, 1 half-open, 2 open (under a supervisor: one worker's)",
  ),
  circuitOpened: spec('protean.subscription.circuit.opened', '{time}', "Times the subscription's circuit breaker opened (a failed probe opens it again)"),
  superseded: spec(
    'protean.subscription.superseded',
    '{message}',
    'Messages acked without running the handler: a later message of their key came within the debounce window',
  ),
  rateLimitDelayed: spec('protean.subscription.rate_limit.delayed', '{message}', "Messages that waited for a slot of the subscription's rate limit"),
  readAhead: spec(
    'protean.subscription.read_ahead',
    '{message}',
    "Messages the subscription holds in this process's memory, read and not finished (at most twice server.messages_per_tick; under a supervisor: one worker's)",
  ),
  relayHeldBack: spec(
    'protean.outbox.relay.held_back',
    '{state}',
    "Whether the relay to this broker holds back for a consumer group past outbox.max_consumer_lag: 1 held back, 0 relaying (under a supervisor: one worker's)",
  ),
  relayConsumerLag: spec(
    'protean.outbox.relay.consumer_lag',
    '{message}',
    "Messages not finished by the consumer group furthest behind on the relay's streams, at the relay's last back-pressure check",
  ),
  outboxPublished: spec('protean.outbox.published', '{message}', 'Outbox rows published to their broker and recorded as published'),
  outboxFailures: spec('protean.outbox.failures', '{attempt}', "Failed publish attempts of outbox rows (each counts one of the row's attempts)"),
  outboxAbandoned: spec('protean.outbox.abandoned', '{message}', 'Outbox rows abandoned after their last attempt (or past outbox.retry.max_total_seconds)'),
  // Read from the databases and brokers at each scrape (the same for every worker; reported once).
  outboxRows: spec('protean.outbox.rows', '{row}', 'Outbox rows by protean.outbox.status'),
  outboxOldestPendingAge: spec('protean.outbox.oldest_pending.age', 's', 'Age of the oldest pending or failed outbox row; 0 when there is none'),
  subscriptionLag: spec(
    'protean.subscription.lag',
    '{message}',
    "Messages not yet delivered to the subscription's consumer group (for an event-store subscription: events after its cursor, counted up to 10,000)",
  ),
  subscriptionPending: spec('protean.subscription.pending', '{message}', 'Messages delivered to a consumer of the group and not acknowledged yet'),
  subscriptionConsumers: spec('protean.subscription.consumers', '{consumer}', 'Consumers registered in the group'),
  processManagerInstances: spec(
    'protean.process_manager.instances',
    '{instance}',
    'Process manager instances by protean.state: open (started, not completed) or ended',
  ),
  processManagerTimeouts: spec(
    'protean.process_manager.due_timeouts',
    '{timeout}',
    'Process manager timeouts scheduled and not yet sent; protean.timeout.past_due = true for those whose time has come',
  ),
  subscriptionDeadLetters: spec('protean.subscription.dead_letters', '{message}', 'Dead letters the subscription set aside (dead-letter queue depth)'),
} as const;

/** Attribute keys: semantic-convention ones first, then protean's own. */
export const ATTR = {
  messagingSystem: 'messaging.system',
  destination: 'messaging.destination.name',
  consumerGroup: 'messaging.consumer.group.name',
  operationName: 'messaging.operation.name',
  errorType: 'error.type',
  source: 'protean.subscription.source',
  outcome: 'protean.outcome',
  database: 'protean.database',
  outboxStatus: 'protean.outbox.status',
  processor: 'protean.outbox.processor',
  broker: 'protean.broker',
  processManager: 'protean.process_manager',
  state: 'protean.state',
  pastDue: 'protean.timeout.past_due',
} as const;

/** The instrumentation scope every protean-ts instrument belongs to. */
export const METER_NAME = '@protean-ts/server';
