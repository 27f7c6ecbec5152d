/**
 * A RabbitMQ that goes away for a while, simulated by a TCP proxy of the test's own in front of
 * the shared RabbitMQ (cut, then restored on the same port; the shared server is never stopped):
 * the processor pauses and probes, holds no rows, burns no attempts, and once the proxy is back
 * the broker reconnects by itself and everything committed meanwhile is published and confirmed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { createRabbitmqVhost, deleteRabbitmqVhost, POSTGRES, RABBITMQ, RowFactory, servicesUp } from '@protean-ts/core/testing';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, outboxDatabase, type TempDatabase } from './support/real-services.js';
import { TcpProxy } from './support/tcp-proxy.js';

const up = await servicesUp(POSTGRES, RABBITMQ);
const STREAM = 'conformance::thing';

describe.skipIf(!up)('OutboxProcessor while RabbitMQ is unreachable', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let proxy: TcpProxy;
  let vhost: string;
  let broker: RabbitMQBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_rabbit_outage');
    provider = await outboxDatabase(db.uri);
    vhost = await createRabbitmqVhost('outbox-outage');
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5672 });
    broker = new RabbitMQBroker(rows.broker, { provider: 'rabbitmq', uri: `amqp://guest:guest@127.0.0.1:${proxy.port}/${vhost}`, connect_timeout_ms: 1_000 });
    await broker.connect();
    // The subscriber's queue exists from the start, so it receives every message published.
    await broker.ensureGroup(STREAM, 'subscriber');
  });
  afterAll(async () => {
    await broker?.close();
    await proxy?.close();
    if (vhost) await deleteRabbitmqVhost(vhost);
    await provider?.close();
    await db?.drop();
  });
  afterEach(() => logs?.restore());

  const commitRound = (n: number, keys: number): NewOutboxRow[] => Array.from({ length: keys }, (_, k) => rows.row(`key${k}`, n));
  const mine = async () => (await provider.outbox.list({ limit: 100_000 })).filter((r) => r.targetBroker === rows.broker);

  it('loses nothing, consumes no attempts, and resumes on its own once RabbitMQ answers again', async () => {
    logs = captureLogs();
    const relay = new OutboxProcessor({
      name: 'rabbit-outage-relay',
      store: provider.outbox,
      broker,
      config: outboxConfig({ tick_interval: 0.1, messages_per_tick: 50 }),
      workerId: 'outage-worker',
      brokerProbe: { initialMs: 100, maxMs: 500 },
    });
    await relay.start();
    try {
      for (let n = 1; n <= 2; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 60, 15_000, 'the first 60 rows');

      await proxy.cut();
      for (let n = 3; n <= 10; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(() => relay.state === 'broker-unavailable', 15_000, 'the processor to pause');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const during = await mine();
      expect(during.filter((r) => r.status === 'processing')).toEqual([]);
      expect(during.filter((r) => r.retryCount > 0 || r.status === 'failed' || r.status === 'abandoned')).toEqual([]);
      expect(during.filter((r) => r.status === 'pending')).toHaveLength(240);
      expect(await broker.ping()).toBe(false);

      await proxy.restore();
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 300, 30_000, 'all 300 rows after the proxy is back');
      expect(relay.state).toBe('running');
    } finally {
      await relay.stop();
    }

    const after = await mine();
    expect(after.every((r) => r.status === 'published' && r.retryCount === 0)).toBe(true);
    expect(logs.messages('warn').filter((m) => m.startsWith('broker unreachable; pausing'))).toHaveLength(1);
    expect(logs.messages('info').some((m) => m === 'broker reachable again; resuming')).toBe(true);

    // Every message reached the subscriber's queue, in each key's order.
    const envelopes = [];
    for (;;) {
      const batch = await broker.read(STREAM, 'subscriber', 'checker', { count: 500, blockMs: 0 });
      if (batch.length === 0) break;
      envelopes.push(...batch.map((m) => m.envelope));
      await broker.ack(
        STREAM,
        'subscriber',
        batch.map((m) => m.id),
      );
    }
    const ids = envelopes.map((e) => e.metadata.headers.id);
    expect(new Set(ids).size).toBe(300);
    // A publish whose confirm was cut off is published again (at-least-once): a repeat is allowed, a loss is not.
    const perKey = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const e of envelopes) {
      if (seen.has(String(e.metadata.headers.id))) continue;
      seen.add(String(e.metadata.headers.id));
      perKey.set(e.metadata.headers.stream, [...(perKey.get(e.metadata.headers.stream) ?? []), String(e.metadata.domain.sequenceId)]);
    }
    const expected = Array.from({ length: 10 }, (_, i) => `${i + 1}.0`).join();
    expect([...perKey.values()].filter((s) => s.join() !== expected)).toEqual([]);
  }, 90_000);
});
