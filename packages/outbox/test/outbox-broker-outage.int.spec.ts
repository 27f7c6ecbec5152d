/**
 * A Redis that goes away for a while: the processor pauses and probes, holds no rows, burns no
 * attempts, and once Redis is back it resumes by itself and everything committed meanwhile flows.
 * Uses a redis-server of its own (append-only file on), stopped and restarted on the same port.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/core/testing';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, drainStream, outboxDatabase, redisBroker, type TempDatabase } from './support/real-services.js';
import { ThrowawayRedis } from './support/throwaway-redis.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('OutboxProcessor while Redis is down', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let redis: ThrowawayRedis;
  let broker: RedisBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_outage');
    provider = await outboxDatabase(db.uri);
    redis = await ThrowawayRedis.start();
    broker = redisBroker(rows.broker, 'outage:', redis.uri);
    await broker.connect();
  });
  afterAll(async () => {
    await broker?.close();
    await redis?.destroy();
    await provider?.close();
    await db?.drop();
  });
  afterEach(() => logs?.restore());

  const commitRound = (n: number, keys: number): NewOutboxRow[] => Array.from({ length: keys }, (_, k) => rows.row(`key${k}`, n));
  const mine = async () => (await provider.outbox.list({ limit: 100_000 })).filter((r) => r.targetBroker === rows.broker);

  it('loses nothing, consumes no attempts, and resumes on its own', async () => {
    logs = captureLogs();
    const relay = new OutboxProcessor({
      name: 'outage-relay',
      store: provider.outbox,
      broker,
      config: outboxConfig({ tick_interval: 0.1, messages_per_tick: 50 }),
      workerId: 'outage-worker',
      brokerProbe: { initialMs: 100, maxMs: 500 },
    });
    await relay.start();
    try {
      for (let n = 1; n <= 2; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 60, 10_000, 'the first 60 rows');

      await redis.stop();
      for (let n = 3; n <= 10; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(() => relay.state === 'broker-unavailable', 10_000, 'the processor to pause');
      // Paused for a while: several probes fail, yet no row is charged and none stays claimed.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const during = await mine();
      expect(during.filter((r) => r.status === 'processing')).toEqual([]);
      expect(during.filter((r) => r.retryCount > 0 || r.status === 'failed' || r.status === 'abandoned')).toEqual([]);
      expect(during.filter((r) => r.status === 'pending')).toHaveLength(240);
      expect((await relay.metrics()).state).toBe('broker-unavailable');

      await redis.start();
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 300, 20_000, 'all 300 rows after the restart');
      expect(relay.state).toBe('running');
    } finally {
      await relay.stop();
    }

    const after = await mine();
    expect(after.every((r) => r.status === 'published' && r.retryCount === 0)).toBe(true);
    expect(logs.messages('warn').filter((m) => m.startsWith('broker unreachable; pausing'))).toHaveLength(1);
    expect(logs.messages('info').some((m) => m === 'broker reachable again; resuming')).toBe(true);

    // Redis kept its data across the restart: every message is there, once, in order per key.
    const envelopes = await drainStream(broker, 'conformance::thing');
    const ids = envelopes.map((e) => e.metadata.headers.id);
    expect(new Set(ids).size).toBe(300);
    expect(ids).toHaveLength(300);
    const perKey = new Map<string, string[]>();
    for (const e of envelopes) perKey.set(e.metadata.headers.stream, [...(perKey.get(e.metadata.headers.stream) ?? []), String(e.metadata.domain.sequenceId)]);
    const expected = Array.from({ length: 10 }, (_, i) => `${i + 1}.0`).join();
    expect([...perKey.values()].filter((s) => s.join() !== expected)).toEqual([]);
  }, 60_000);
});
