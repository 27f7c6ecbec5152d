/**
 * The backlog gauges as observed at a scrape: a pending count that covers only the scraping
 * process's own deliveries (RabbitMQ without management_uri) is left out rather than reported.
 */
import { describe, expect, it } from 'vitest';
import type { BatchObservableResult, Observable } from '@opentelemetry/api';
import { observeBacklog, type BacklogGauges } from '../src/metrics/engine-metrics.js';
import type { StreamSubscriptionBacklog, SystemStatus } from '../src/status/system-status.js';

function recorder() {
  const seen: { gauge: string; value: number; group: unknown }[] = [];
  const result = {
    observe: (gauge: Observable & { name: string }, value: number, attributes: Record<string, unknown>) =>
      seen.push({ gauge: gauge.name, value, group: attributes['messaging.consumer.group.name'] }),
  };
  const gauges = Object.fromEntries(
    ['rows', 'oldest', 'lag', 'pending', 'consumers', 'deadLetters', 'instances', 'timeouts'].map((name) => [name, { name }]),
  ) as unknown as BacklogGauges;
  return { seen, result: result as unknown as BatchObservableResult, gauges };
}

const backlog = (subscription: string, extra: Partial<StreamSubscriptionBacklog> = {}): StreamSubscriptionBacklog => ({
  source: 'stream',
  subscription,
  role: 'eventHandler',
  handler: subscription,
  broker: 'default',
  stream: 'shop::order',
  exists: true,
  lag: 3,
  pending: 2,
  consumers: 1,
  deadLetters: 0,
  lostToTrimming: 0,
  ...extra,
});

describe('backlog gauges', () => {
  it('reports pending where the broker sees every consumer, and leaves it out where it sees only its own', () => {
    const { seen, result, gauges } = recorder();
    const status: SystemStatus = {
      takenAt: new Date().toISOString(),
      outboxes: [],
      processManagers: [],
      subscriptions: [backlog('Everyone'), backlog('OwnOnly', { pendingLocalOnly: true, pending: 0 })],
    };
    observeBacklog(result, status, gauges);
    expect(seen.filter((s) => s.gauge === 'pending')).toEqual([{ gauge: 'pending', value: 2, group: 'Everyone' }]);
    expect(seen.filter((s) => s.gauge === 'lag').map((s) => s.group)).toEqual(['Everyone', 'OwnOnly']);
  });
});
