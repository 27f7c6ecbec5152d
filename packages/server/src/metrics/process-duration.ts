/**
 * `messaging.process.duration`: how long each handler attempt took, per subscription. Created
 * when a subscription starts, after the server installed its MeterProvider (the metrics API has
 * no proxy: an instrument taken earlier would stay a no-op).
 */
import { metrics, type Attributes, type Histogram } from '@opentelemetry/api';
import { ATTR, METER_NAME, METRICS } from './metric-names.js';

/** Seconds; the semantic conventions' advice for messaging durations, stretched to a minute for slow handlers. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60];

export class ProcessDuration {
  private readonly histogram: Histogram;
  private readonly attributes: Attributes;

  constructor(labels: { system: string; destination: string; group: string }) {
    const { name, unit, description } = METRICS.processDuration;
    this.histogram = metrics.getMeter(METER_NAME).createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: BUCKETS } });
    this.attributes = {
      [ATTR.messagingSystem]: labels.system,
      [ATTR.destination]: labels.destination,
      [ATTR.consumerGroup]: labels.group,
      [ATTR.operationName]: 'process',
    };
  }

  /** One attempt that began at `startedAt` (performance.now()); `error` when the handler threw. */
  record(startedAt: number, error?: unknown): void {
    const seconds = (performance.now() - startedAt) / 1000;
    this.histogram.record(seconds, error === undefined ? this.attributes : { ...this.attributes, [ATTR.errorType]: errorType(error) });
  }
}

/** The error's class name (low cardinality, as `error.type` asks), never its message. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.constructor.name || 'Error' : '_OTHER';
}
