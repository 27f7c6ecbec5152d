/**
 * The processor relaying a PostgreSQL outbox to Redis Streams: order per key, the NOTIFY
 * wake-up, real message-level failures (a key of the wrong type), abandoning, and cleanup by
 * retention, all against the real servers.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import {
  appendCommitted,
  createTempDatabase,
  drainStream,
  outboxDatabase,
  REDIS_URI,
  redisBroker,
  streamPrefix,
  type TempDatabase,
} from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('OutboxProcessor: PostgreSQL → Redis', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let redis: Redis;
  let prefix: string;
  let broker: RedisBroker;
  let rows: RowFactory;
  let logs: CapturedLogs;
  const processors: OutboxProcessor[] = [];

  beforeAll(async () => {
    db = await createTempDatabase('outbox_relay');
    provider = await outboxDatabase(db.uri);
    redis = new Redis(REDIS_URI);
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
    redis?.disconnect();
  });
  beforeEach(async () => {
    logs = captureLogs();
    rows = new RowFactory();
    prefix = streamPrefix('relay');
    broker = redisBroker(rows.broker, prefix);
    await broker.connect();
  });
  afterEach(async () => {
    await Promise.all(processors.splice(0).map((p) => p.stop()));
    await broker.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    logs.restore();
  });

  function processor(overrides: Parameters<typeof outboxConfig>[0] = {}): OutboxProcessor {
    const made = new OutboxProcessor({
      name: `outbox-processor-default-to-${broker.name}`,
      store: provider.outbox,
      broker,
      config: outboxConfig(overrides),
      workerId: `w-${processors.length}`,
    });
    processors.push(made);
    return made;
  }

  const mine = async (status?: OutboxRow['status']) =>
    (await provider.outbox.list({ limit: 100_000, ...(status ? { status } : {}) })).filter((r) => r.targetBroker === rows.broker);

  it('publishes every row once, per-key in sequence order, woken by the commit itself', async () => {
    // With a one-minute poll, only NOTIFY can explain the rows arriving promptly.
    const relay = processor({ tick_interval: 60, messages_per_tick: 7 });
    await relay.start();
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (let commit = 1; commit <= 5; commit++)
      await appendCommitted(
        provider,
        keys.map((k) => rows.row(k, commit)),
      );
    await waitFor(async () => (await mine('published')).length === 60, 15_000, '60 published rows');

    const envelopes = await drainStream(broker, 'conformance::thing');
    expect(envelopes).toHaveLength(60);
    expect(new Set(envelopes.map((e) => e.metadata.headers.id)).size).toBe(60);
    for (const key of keys) {
      const sequences = envelopes.filter((e) => e.metadata.headers.stream === rows.key(key)).map((e) => e.metadata.domain.sequenceId);
      expect(sequences).toEqual(['1.0', '2.0', '3.0', '4.0', '5.0']);
    }
    // The envelope arrives as it was committed.
    const [first] = await mine('published');
    expect(envelopes.find((e) => e.metadata.headers.id === first!.messageId)).toEqual(first!.envelope);
  });

  it('a message Redis refuses (a key of the wrong type) fails on its own, then is abandoned after max attempts', async () => {
    await redis.set(`${prefix}poison::thing`, 'not a stream');
    const bad = { ...rows.row('a', 1, { streamName: 'poison::thing' }), maxRetries: 2 };
    await appendCommitted(provider, [bad, rows.row('a', 2), rows.row('b', 1), rows.row('c', 1)]);
    const relay = processor();

    expect(await relay.tick()).toMatchObject({ claimed: 3, published: 2, failed: 1, brokerUnavailable: false });
    const [failed] = await mine('failed');
    expect(failed).toMatchObject({ messageId: bad.messageId, retryCount: 1 });
    expect(failed!.lastError).toMatch(/WRONGTYPE/);

    expect(await relay.tick()).toMatchObject({ claimed: 1, abandoned: 1 });
    expect((await mine('abandoned'))[0]).toMatchObject({ messageId: bad.messageId, retryCount: 2 });
    expect(logs.records.some((r) => r.level === 'warn' && r.msg === 'message abandoned after 2 attempts' && r.messageId === bad.messageId)).toBe(true);

    // The abandoned row no longer holds its key back.
    expect(await relay.tick()).toMatchObject({ claimed: 1, published: 1 });
    expect((await drainStream(broker, 'conformance::thing')).map((e) => e.metadata.headers.stream).sort()).toEqual(
      [rows.key('a'), rows.key('b'), rows.key('c')].sort(),
    );
  });

  it('cleanup deletes published rows past published_retention_hours and keeps younger ones and abandoned ones', async () => {
    const relay = processor({ retry: { max_attempts: 1 } });
    await redis.set(`${prefix}poison::thing`, 'not a stream');
    await appendCommitted(provider, [rows.row('old1', 1), rows.row('old2', 1), { ...rows.row('bad', 1, { streamName: 'poison::thing' }), maxRetries: 1 }]);
    await relay.tick();
    expect(await mine('published')).toHaveLength(2);
    expect(await mine('abandoned')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await appendCommitted(provider, [rows.row('young', 1)]);
    await relay.tick();

    // A one-second retention for published rows, an hour for abandoned ones.
    const cleaner = processor({ cleanup: { cleanup_interval_ticks: 1000, published_retention_hours: 1 / 3600, abandoned_retention_hours: 1 } });
    await cleaner.start();
    await waitFor(() => logs.messages('info').some((m) => m.startsWith('outbox cleanup removed')), 5000, 'the cleanup');
    // The table is shared by this file's tests: older tests' published rows go too.
    const line = logs.records.find((r) => r.msg.startsWith('outbox cleanup removed'))!;
    expect(line).toMatchObject({ level: 'info', abandoned: 0 });
    expect(line.published).toBeGreaterThanOrEqual(2);
    expect((await mine()).map((r) => r.partitionKey.split('-').pop()).sort()).toEqual(['bad', 'young']);
  });

  it('reports counts, the oldest pending age and the publish rate', async () => {
    await appendCommitted(provider, [rows.row('a', 1), rows.row('a', 2), rows.row('b', 1)]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const relay = processor({ messages_per_tick: 1 });
    const before = await relay.metrics();
    expect(before).toMatchObject({ pending: 3, processing: 0, failed: 0, abandoned: 0, publishedPerSecond: 0 });
    expect(before.oldestPendingAgeMs).toBeGreaterThanOrEqual(25);
    await relay.tick();
    const after = await relay.metrics();
    expect(after).toMatchObject({ pending: 2, totals: { published: 1, batches: 1 } });
    expect(after.publishedPerSecond).toBeGreaterThan(0);
  });
});
