/**
 * One scrape for all of a supervisor's workers: each worker sends what its reader collected
 * (plain data over IPC), and the supervisor merges it the way Prometheus would sum it: counters
 * and histograms add up per metric and attribute set; gauges (the backlog read from databases and
 * brokers, the same from every worker) are taken from the lowest-numbered worker reporting them.
 * Exponential histograms are not used by protean-ts and are taken from one worker as well.
 */
import { DataPointType, type DataPoint, type MetricData, type ScopeMetrics } from '@opentelemetry/sdk-metrics';
import type { Histogram } from '@opentelemetry/sdk-metrics';

export interface WorkerMetrics {
  workerId: number;
  scopeMetrics: ScopeMetrics[];
}

/** What a worker sends: its scope metrics, with infinities (an empty histogram's min and max) as JSON can carry them. */
export function portableScopeMetrics(scopeMetrics: ScopeMetrics[]): ScopeMetrics[] {
  return JSON.parse(JSON.stringify(scopeMetrics)) as ScopeMetrics[];
}

export function mergeWorkerMetrics(workers: readonly WorkerMetrics[]): ScopeMetrics[] {
  const scopes = new Map<string, { scope: ScopeMetrics['scope']; metrics: Map<string, MetricData> }>();
  for (const worker of [...workers].sort((a, b) => a.workerId - b.workerId)) {
    for (const { scope, metrics } of worker.scopeMetrics) {
      const scopeKey = `${scope.name}\u0000${scope.version ?? ''}`;
      let merged = scopes.get(scopeKey);
      if (!merged) scopes.set(scopeKey, (merged = { scope, metrics: new Map() }));
      for (const metric of metrics) {
        const existing = merged.metrics.get(metric.descriptor.name);
        merged.metrics.set(metric.descriptor.name, existing ? mergeMetric(existing, metric) : copyMetric(metric));
      }
    }
  }
  return [...scopes.values()].map(({ scope, metrics }) => ({ scope, metrics: [...metrics.values()] }));
}

function copyMetric(metric: MetricData): MetricData {
  return { ...metric, dataPoints: metric.dataPoints.map((p) => ({ ...p })) } as MetricData;
}

function mergeMetric(into: MetricData, from: MetricData): MetricData {
  if (into.dataPointType !== from.dataPointType) return into;
  const points = new Map<string, DataPoint<unknown>>(into.dataPoints.map((p) => [attributeKey(p.attributes), p as DataPoint<unknown>]));
  for (const point of from.dataPoints as DataPoint<unknown>[]) {
    const key = attributeKey(point.attributes);
    const existing = points.get(key);
    if (!existing) points.set(key, { ...point });
    else if (into.dataPointType === DataPointType.SUM) points.set(key, { ...existing, value: (existing.value as number) + (point.value as number) });
    else if (into.dataPointType === DataPointType.HISTOGRAM)
      points.set(key, { ...existing, value: addHistograms(existing.value as Histogram, point.value as Histogram) });
    // GAUGE and EXPONENTIAL_HISTOGRAM: the lower worker's point stays.
  }
  return { ...into, dataPoints: [...points.values()] } as MetricData;
}

function addHistograms(a: Histogram, b: Histogram): Histogram {
  const same = a.buckets.boundaries.length === b.buckets.boundaries.length && a.buckets.boundaries.every((x, i) => x === b.buckets.boundaries[i]);
  if (!same) return a;
  return {
    buckets: { boundaries: a.buckets.boundaries, counts: a.buckets.counts.map((n, i) => n + (b.buckets.counts[i] ?? 0)) },
    count: a.count + b.count,
    sum: (a.sum ?? 0) + (b.sum ?? 0),
    ...(a.min !== undefined && b.min !== undefined ? { min: Math.min(a.min, b.min) } : {}),
    ...(a.max !== undefined && b.max !== undefined ? { max: Math.max(a.max, b.max) } : {}),
  };
}

function attributeKey(attributes: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(attributes)
      .sort()
      .map((k) => [k, attributes[k]]),
  );
}
