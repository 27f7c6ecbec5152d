import { describe, expect, it } from 'vitest';
import { MeterProvider, MetricReader, type ScopeMetrics } from '@opentelemetry/sdk-metrics';
import { defaultResource } from '@opentelemetry/resources';
import { mergeWorkerMetrics, portableScopeMetrics } from '../src/metrics/worker-metrics-merge.js';
import { prometheusText } from '../src/metrics/prometheus-text.js';

class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One worker's metrics, recorded through a real MeterProvider and sent as over IPC. */
async function worker(record: (provider: MeterProvider) => void): Promise<ScopeMetrics[]> {
  const reader = new PullReader();
  const provider = new MeterProvider({ readers: [reader] });
  record(provider);
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return portableScopeMetrics(resourceMetrics.scopeMetrics);
}

const group = (name: string) => ({ 'messaging.consumer.group.name': name });

describe('mergeWorkerMetrics: one scrape for a supervisor', () => {
  it('sums counters and histograms per attribute set and takes gauges from the lowest worker', async () => {
    const record = (handled: Record<string, number>, durations: number[], lag: number) => (provider: MeterProvider) => {
      const meter = provider.getMeter('@protean-ts/server');
      const consumed = meter.createCounter('messaging.client.consumed.messages', { unit: '{message}' });
      for (const [name, n] of Object.entries(handled)) consumed.add(n, group(name));
      const duration = meter.createHistogram('messaging.process.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 1] } });
      for (const seconds of durations) duration.record(seconds, group('Ledger'));
      meter.createObservableGauge('protean.subscription.lag').addCallback((result) => result.observe(lag, group('Ledger')));
    };
    const one = await worker(record({ Ledger: 3, Mail: 1 }, [0.05, 0.5], 7));
    const two = await worker(record({ Ledger: 4 }, [0.05, 2, 3], 9));

    const text = prometheusText({
      resource: defaultResource(),
      scopeMetrics: mergeWorkerMetrics([
        { workerId: 2, scopeMetrics: two },
        { workerId: 1, scopeMetrics: one },
      ]),
    });
    const lines = text.split('\n');
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix));
    expect(line('messaging_client_consumed_messages_total{messaging_consumer_group_name="Ledger"')).toMatch(/ 7$/);
    expect(line('messaging_client_consumed_messages_total{messaging_consumer_group_name="Mail"')).toMatch(/ 1$/);
    expect(line('messaging_process_duration_count{')).toMatch(/ 5$/);
    expect(Number(line('messaging_process_duration_sum{')!.split(' ').pop())).toBeCloseTo(5.6);
    expect(line('messaging_process_duration_bucket{messaging_consumer_group_name="Ledger",otel_scope_name="@protean-ts/server",le="0.1"}')).toMatch(/ 2$/);
    expect(line('messaging_process_duration_bucket{messaging_consumer_group_name="Ledger",otel_scope_name="@protean-ts/server",le="1"}')).toMatch(/ 3$/);
    expect(line('messaging_process_duration_bucket{messaging_consumer_group_name="Ledger",otel_scope_name="@protean-ts/server",le="+Inf"}')).toMatch(/ 5$/);
    // The backlog is read from the same database by each worker: reported once, from worker 1.
    expect(lines.filter((l) => l.startsWith('protean_subscription_lag{'))).toEqual([expect.stringMatching(/ 7$/)]);
  });

  it('keeps a worker that reports nothing from changing the sums', async () => {
    const one = await worker((provider) => provider.getMeter('m').createCounter('c').add(2));
    const merged = mergeWorkerMetrics([
      { workerId: 1, scopeMetrics: one },
      { workerId: 2, scopeMetrics: [] },
    ]);
    expect(prometheusText({ resource: defaultResource(), scopeMetrics: merged })).toMatch(/^c_total\{otel_scope_name="m"\} 2$/m);
  });
});
