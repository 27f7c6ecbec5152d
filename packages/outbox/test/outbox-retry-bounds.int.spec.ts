/**
 * How the relay gives up on a message, against real Redis (a stream key of the wrong type makes a
 * real message-level failure): `outbox.retry.max_total_seconds` on both stores, and the alert a
 * domain gets through `domain.onAbandoned`, with listeners that throw or hang.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryProvider, type AbandonedMessage, type DatabaseProvider, type NewOutboxRow, type OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { RedisBroker } from '@protean-ts/redis';
import { createOutboxProcessors, OutboxProcessor } from '../src/index.js';
import { makeOrderDomain } from './support/order-domain.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { createTempDatabase, drainStream, outboxDatabase, REDIS_URI, redisBroker, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);
const POISON_STREAM = 'poison::thing';

async function appendCommitted(provider: DatabaseProvider, rows: readonly NewOutboxRow[]): Promise<void> {
  const tx = await provider.begin();
  try {
    await provider.outbox.append(tx, rows);
    await tx.commit();
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

describe.skipIf(!up)('outbox retry bounds and abandon alerts (Redis, a stream key of the wrong type)', () => {
  let db: TempDatabase;
  let postgres: DatabaseProvider;
  let redis: Redis;
  let logs: CapturedLogs;

  beforeAll(async () => {
    db = await createTempDatabase('outbox_bounds');
    postgres = await outboxDatabase(db.uri);
    redis = new Redis(REDIS_URI);
  });
  afterAll(async () => {
    await postgres?.close();
    await db?.drop();
    redis?.disconnect();
  });
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  async function cleanRedis(prefix: string): Promise<void> {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }

  describe.each(['memory', 'postgresql'] as const)('on the %s store', (storeKind) => {
    let provider: DatabaseProvider;
    let broker: RedisBroker;
    let rows: RowFactory;
    let prefix: string;
    let relay: OutboxProcessor | undefined;

    beforeEach(async () => {
      if (storeKind === 'memory') {
        const memory = new MemoryProvider('default');
        await memory.connect();
        await memory.setupOutbox();
        provider = memory;
      } else {
        provider = postgres;
      }
      rows = new RowFactory();
      prefix = streamPrefix('bounds');
      broker = redisBroker(rows.broker, prefix);
      await broker.connect();
      await redis.set(`${prefix}${POISON_STREAM}`, 'not a stream');
    });
    afterEach(async () => {
      await relay?.stop();
      relay = undefined;
      await broker.close();
      await cleanRedis(prefix);
      if (storeKind === 'memory') await provider.close();
    });

    const mine = async (status?: OutboxRow['status']) =>
      (await provider.outbox.list({ limit: 100_000, ...(status ? { status } : {}) })).filter((r) => r.targetBroker === rows.broker);

    it('regression (retries bounded by attempts only): a row still failing max_total_seconds after it was written is abandoned with that reason', async () => {
      // A thousand attempts 0.1–0.2 s apart would take minutes: only the one-second bound ends it sooner.
      const bad = { ...rows.row('a', 1, { streamName: POISON_STREAM }), maxRetries: 1000 };
      await appendCommitted(provider, [bad, rows.row('a', 2), rows.row('b', 1)]);
      const [written] = (await mine()).filter((r) => r.messageId === bad.messageId);
      relay = new OutboxProcessor({
        name: `outbox-processor-default-to-${broker.name}`,
        store: provider.outbox,
        broker,
        config: outboxConfig({ retry: { max_attempts: 1000, base_delay_seconds: 0.1, max_backoff_seconds: 0.2, max_total_seconds: 1 } }),
        workerId: `bounds-${storeKind}`,
      });
      await relay.start();
      await waitFor(async () => (await mine('abandoned')).length === 1, 8_000, 'the row to be abandoned');
      const abandonedAt = Date.now();

      const [abandoned] = await mine('abandoned');
      expect(abandoned!.messageId).toBe(bad.messageId);
      expect(abandoned!.retryCount).toBeGreaterThanOrEqual(2);
      expect(abandoned!.retryCount).toBeLessThan(100);
      expect(abandoned!.lastError).toMatch(
        /^abandoned [0-9]+ s after it was written, after [0-9]+ attempts \(outbox\.retry\.max_total_seconds = 1\); last error: .*WRONGTYPE/,
      );
      // Not before the bound (the last retry is moved to it), and not long after.
      expect(abandonedAt).toBeGreaterThanOrEqual(written!.createdAt.getTime() + 1000);
      expect(
        logs.records.some(
          (r) =>
            r.level === 'warn' &&
            r.reason === 'max_total_seconds' &&
            r.messageId === bad.messageId &&
            r.msg.includes('outbox.retry.max_total_seconds (1) passed'),
        ),
      ).toBe(true);
      // The key moves on; the other key was never held up.
      await waitFor(async () => (await mine('published')).length === 2, 5_000, 'the rest to be published');
      expect((await relay.metrics()).totals).toMatchObject({ abandoned: 1, abandonedPastMaxTotalSeconds: 1 });
    });
  });

  describe('domain.onAbandoned', () => {
    it('hears each abandoned message with its id, type, stream, key, attempts, reason and broker; listeners that throw or hang are logged, counted, and do not stop the relay', async () => {
      const prefix = streamPrefix('alerts');
      const shop = makeOrderDomain();
      await shop.domain.init({
        config: {
          databases: { default: { provider: 'postgresql', database_uri: db.uri } },
          brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
          enable_outbox: true,
          outbox: { tick_interval: 0.05, retry: { max_attempts: 2, base_delay_seconds: 0, jitter: false } },
        },
      });
      const heard: AbandonedMessage[] = [];
      shop.domain.onAbandoned((message) => {
        heard.push(message);
      });
      shop.domain.onAbandoned(function pagesSomeone() {
        throw new Error('pager is down');
      });
      shop.domain.onAbandoned(function neverAnswers() {
        return new Promise<void>(() => undefined);
      });
      const removed = shop.domain.onAbandoned(() => {
        throw new Error('a removed listener must not be called');
      });
      removed();

      const provider = shop.domain.providers.get('default')!;
      await redis.set(`${prefix}${POISON_STREAM}`, 'not a stream');
      const rows = new RowFactory();
      const forDefault = (key: string, sequence: number, streamName = 'conformance::thing') => ({
        ...rows.row(key, sequence, { streamName, targetBroker: 'default' }),
        maxRetries: 2,
      });
      const bad = forDefault('a', 1, POISON_STREAM);
      await appendCommitted(provider, [bad, forDefault('a', 2)]);

      const [processor] = createOutboxProcessors(shop.domain, { workerId: 'alerts', abandonListenerTimeoutMs: 300 });
      const before = Date.now();
      await processor!.start();
      try {
        await waitFor(() => heard.length === 1, 10_000, 'the alert');
        const [row] = (await provider.outbox.list({ status: 'abandoned', limit: 10 })).filter((r) => r.messageId === bad.messageId);
        expect(heard[0]).toEqual({
          outboxId: row!.id,
          messageId: bad.messageId,
          messageType: 'Conformance.ThingHappened.v1',
          streamName: POISON_STREAM,
          partitionKey: rows.key('a'),
          sequence: 1,
          targetBroker: 'default',
          attempts: 2,
          reason: 'max_attempts',
          lastError: row!.lastError,
          createdAt: row!.createdAt,
          abandonedAt: expect.any(Date),
        });
        expect(heard[0]!.lastError).toMatch(/^abandoned after 2 attempts \(outbox\.retry\.max_attempts = 2\); last error: .*WRONGTYPE/);
        expect(heard[0]!.abandonedAt.getTime()).toBeGreaterThanOrEqual(before);

        // The throwing listener at once, the hanging one after its 300 ms.
        await waitFor(async () => (await processor!.metrics()).totals.abandonAlertsFailed === 2, 5_000, 'both failing listeners to be counted');
        const errors = logs.records.filter((r) => r.level === 'error');
        expect(
          errors.some((r) => r.msg === 'abandoned-message listener failed' && r.listener === 'pagesSomeone' && String(r.error).includes('pager is down')),
        ).toBe(true);
        expect(
          errors.some((r) => r.msg === 'abandoned-message listener did not finish within 300 ms; no longer waiting for it' && r.listener === 'neverAnswers'),
        ).toBe(true);
        expect(logs.records.some((r) => r.level === 'warn' && r.msg === 'message abandoned after 2 attempts' && r.messageId === bad.messageId)).toBe(true);

        // The relay goes on: the key's next row and a new commit are published.
        const later = forDefault('c', 1);
        await appendCommitted(provider, [later]);
        await waitFor(async () => (await provider.outbox.counts('default')).published === 2, 5_000, 'the later rows');
        const metrics = await processor!.metrics();
        expect(metrics.state).toBe('running');
        expect(metrics.totals).toMatchObject({ abandoned: 1, abandonedPastMaxTotalSeconds: 0, abandonAlertsFailed: 2, abandonAlertsDropped: 0 });
        expect(metrics.abandoned).toBe(1);
        expect((await drainStream(shop.domain.brokers.get('default')!, 'conformance::thing')).map((e) => e.metadata.headers.id).sort()).toEqual(
          [
            later.messageId,
            ...(await provider.outbox.list({ status: 'published', limit: 10 })).filter((r) => r.partitionKey === rows.key('a')).map((r) => r.messageId),
          ].sort(),
        );
      } finally {
        // A listener that never settles must not hold stop() up.
        const stopping = Date.now();
        await processor!.stop();
        expect(Date.now() - stopping).toBeLessThan(5_000);
        await shop.domain.close();
        await cleanRedis(prefix);
      }
      expect(heard).toHaveLength(1);
    });
  });
});
