/**
 * The Engine's metrics, observed at each collection: what its subscriptions and outbox
 * processors counted since they started (the counters they keep for logs and health), and the
 * backlog read through the status collector (outbox rows, lag, pending, consumers, dead letters,
 * process managers' instances and timeouts).
 * The backlog is the same from every worker; a supervisor reports one worker's (see merge).
 */
import { metrics, ValueType, type Attributes, type BatchObservableCallback, type BatchObservableResult, type Meter, type Observable } from '@opentelemetry/api';
import type { Domain } from '@protean-ts/core';
import type { OutboxProcessor } from '@protean-ts/outbox';
import type { SubscriptionStatus } from '../subscriptions/subscription-status.js';
import { collectStatus } from '../status/collect-status.js';
import type { SystemStatus } from '../status/system-status.js';
import { ATTR, METER_NAME, METRICS, type MetricSpec } from './metric-names.js';

/** The circuit state as a number a gauge can carry (and an alert compare). */
const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Event-store subscriptions: events behind the cursor are counted up to this many. */
const MAX_BEHIND = 10_000;

export interface EngineMetricSources {
  domain: Domain;
  subscriptions(): SubscriptionStatus[];
  processors(): readonly OutboxProcessor[];
}

export class EngineMetrics {
  private readonly meter: Meter;
  private readonly observables: Observable[];
  private readonly callback: BatchObservableCallback;

  constructor(private readonly sources: EngineMetricSources) {
    this.meter = metrics.getMeter(METER_NAME);
    const counter = (s: MetricSpec) => this.meter.createObservableCounter(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
    const gauge = (s: MetricSpec, valueType = ValueType.INT) =>
      this.meter.createObservableGauge(s.name, { unit: s.unit, description: s.description, valueType });
    const consumed = counter(METRICS.consumedMessages);
    const retries = counter(METRICS.retries);
    const circuitState = gauge(METRICS.circuitState);
    const circuitOpened = counter(METRICS.circuitOpened);
    const superseded = counter(METRICS.superseded);
    const rateDelayed = counter(METRICS.rateLimitDelayed);
    const readAhead = gauge(METRICS.readAhead);
    const heldBack = gauge(METRICS.relayHeldBack);
    const consumerLag = gauge(METRICS.relayConsumerLag);
    const published = counter(METRICS.outboxPublished);
    const failures = counter(METRICS.outboxFailures);
    const abandoned = counter(METRICS.outboxAbandoned);
    const rows = gauge(METRICS.outboxRows);
    const oldest = gauge(METRICS.outboxOldestPendingAge, ValueType.DOUBLE);
    const lag = gauge(METRICS.subscriptionLag);
    const pending = gauge(METRICS.subscriptionPending);
    const consumers = gauge(METRICS.subscriptionConsumers);
    const deadLetters = gauge(METRICS.subscriptionDeadLetters);
    const instances = gauge(METRICS.processManagerInstances);
    const timeouts = gauge(METRICS.processManagerTimeouts);
    this.observables = [
      consumed,
      retries,
      circuitState,
      circuitOpened,
      superseded,
      rateDelayed,
      readAhead,
      heldBack,
      consumerLag,
      published,
      failures,
      abandoned,
      rows,
      oldest,
      lag,
      pending,
      consumers,
      deadLetters,
      instances,
      timeouts,
    ];

    this.callback = async (result: BatchObservableResult) => {
      for (const status of this.sources.subscriptions()) {
        const attributes = this.subscriptionAttributes(status);
        const outcomes = {
          handled: status.handled,
          skipped: status.skipped,
          duplicate: status.duplicates,
          dead_lettered: status.deadLettered,
          dropped: status.dropped,
        };
        for (const [outcome, value] of Object.entries(outcomes)) result.observe(consumed, value, { ...attributes, [ATTR.outcome]: outcome });
        result.observe(retries, status.retried, attributes);
        const { circuit, debounce, rateLimit } = status.flow ?? {};
        if (circuit) {
          result.observe(circuitState, CIRCUIT_STATE_VALUE[circuit.state], attributes);
          result.observe(circuitOpened, circuit.opened, attributes);
        }
        if (debounce) result.observe(superseded, debounce.superseded, attributes);
        if (rateLimit) result.observe(rateDelayed, rateLimit.delayed, attributes);
        if (status.readAhead) result.observe(readAhead, status.readAhead.held, attributes);
      }
      for (const processor of this.sources.processors()) {
        const totals = processor.totals();
        const attributes = { [ATTR.processor]: processor.name, [ATTR.broker]: processor.targetBroker };
        result.observe(published, totals.published, attributes);
        result.observe(failures, totals.failed, attributes);
        result.observe(abandoned, totals.abandoned, attributes);
        const pressure = processor.backPressure.status();
        if (pressure) {
          result.observe(heldBack, pressure.heldBack ? 1 : 0, attributes);
          if (pressure.worst) result.observe(consumerLag, pressure.worst.behind, attributes);
        }
      }
      const status = await collectStatus(this.sources.domain, { maxBehind: MAX_BEHIND });
      observeBacklog(result, status, { rows, oldest, lag, pending, consumers, deadLetters, instances, timeouts });
    };
    this.meter.addBatchObservableCallback(this.callback, this.observables);
  }

  /** Stops observing (the Engine stopped): its counters leave the next collection. */
  dispose(): void {
    this.meter.removeBatchObservableCallback(this.callback, this.observables);
  }

  private subscriptionAttributes(status: SubscriptionStatus): Attributes {
    return {
      [ATTR.messagingSystem]: status.kind === 'event_store' ? 'protean_event_store' : this.sources.domain.runtime.infrastructure.broker(status.broker).provider,
      [ATTR.destination]: status.stream,
      [ATTR.consumerGroup]: status.name,
      [ATTR.source]: status.kind,
    };
  }
}

export interface BacklogGauges {
  rows: Observable;
  oldest: Observable;
  lag: Observable;
  pending: Observable;
  consumers: Observable;
  deadLetters: Observable;
  instances: Observable;
  timeouts: Observable;
}

export function observeBacklog(result: BatchObservableResult, status: SystemStatus, gauges: BacklogGauges): void {
  for (const outbox of status.outboxes) {
    if (outbox.error !== undefined) continue;
    const database = { [ATTR.database]: outbox.database };
    for (const state of ['pending', 'processing', 'failed', 'scheduled', 'published', 'abandoned'] as const) {
      result.observe(gauges.rows, outbox[state] ?? 0, { ...database, [ATTR.outboxStatus]: state });
    }
    result.observe(gauges.oldest, (outbox.oldestPendingAgeMs ?? 0) / 1000, database);
  }
  for (const backlog of status.subscriptions) {
    if (backlog.error !== undefined) continue;
    const attributes = {
      [ATTR.destination]: backlog.source === 'stream' ? backlog.stream : backlog.category,
      [ATTR.consumerGroup]: backlog.subscription,
      [ATTR.source]: backlog.source === 'stream' ? (backlog.role === 'subscriber' ? 'broker' : 'stream') : 'event_store',
    };
    if (backlog.source === 'stream') {
      if (backlog.lag !== null) result.observe(gauges.lag, backlog.lag, attributes);
      // A count of this process's own deliveries only (RabbitMQ without management_uri) would mislead: left out.
      if (!backlog.pendingLocalOnly) result.observe(gauges.pending, backlog.pending, attributes);
      if (backlog.consumers !== null) result.observe(gauges.consumers, backlog.consumers, attributes);
      if (backlog.deadLetters !== null) result.observe(gauges.deadLetters, backlog.deadLetters, attributes);
    } else {
      result.observe(gauges.lag, backlog.behind, attributes);
      result.observe(gauges.deadLetters, backlog.deadLetters, attributes);
    }
  }
  for (const manager of status.processManagers) {
    if (manager.error !== undefined) continue;
    const attributes = { [ATTR.processManager]: manager.processManager };
    if (manager.instances !== null) result.observe(gauges.instances, manager.instances, { ...attributes, [ATTR.state]: 'open' });
    if (manager.ended !== null) result.observe(gauges.instances, manager.ended, { ...attributes, [ATTR.state]: 'ended' });
    result.observe(gauges.timeouts, manager.dueTimeouts - manager.pastDueTimeouts, { ...attributes, [ATTR.pastDue]: false });
    result.observe(gauges.timeouts, manager.pastDueTimeouts, { ...attributes, [ATTR.pastDue]: true });
  }
}
