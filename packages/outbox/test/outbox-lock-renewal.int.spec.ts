/**
 * The processing lock (`outbox.lock_seconds`) against real PostgreSQL and Redis: a batch whose
 * publish takes several locks long stays with the processor publishing it, because its heartbeat
 * renews the lock, so a second processor polling all along never claims those rows.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Broker, OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { outboxConfig, waitFor } from './support/processor-fixtures.js';
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
import { slowed } from './support/slow-broker.js';

const up = await servicesUp(POSTGRES, REDIS);
// Two seconds: a heartbeat (every third of it) may run late on a loaded machine by most of a second.
const LOCK_SECONDS = 2;

describe.skipIf(!up)('outbox lock renewal (PostgreSQL → Redis)', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let redis: Redis;
  let rows: RowFactory;
  let prefix: string;
  let broker: RedisBroker;
  const processors: OutboxProcessor[] = [];

  beforeAll(async () => {
    db = await createTempDatabase('outbox_lock');
    provider = await outboxDatabase(db.uri);
    redis = new Redis(REDIS_URI);
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
    redis?.disconnect();
  });
  beforeEach(async () => {
    rows = new RowFactory();
    prefix = streamPrefix('lock');
    broker = redisBroker(rows.broker, prefix);
    await broker.connect();
  });
  afterEach(async () => {
    await Promise.all(processors.splice(0).map((p) => p.stop()));
    await broker.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  const mine = async (status?: OutboxRow['status']) =>
    (await provider.outbox.list({ limit: 100_000, ...(status ? { status } : {}) })).filter((r) => r.targetBroker === rows.broker);

  function processor(workerId: string, target: Broker = broker): OutboxProcessor {
    const made = new OutboxProcessor({
      name: `outbox-processor-default-to-${broker.name}`,
      store: provider.outbox,
      broker: target,
      config: outboxConfig({ lock_seconds: LOCK_SECONDS, messages_per_tick: 50 }),
      workerId,
    });
    processors.push(made);
    return made;
  }

  it('regression (lock never renewed): a publish taking three locks long keeps its rows; another processor polling all along never claims them', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => rows.row(`k${i}`, 1));
    await appendCommitted(provider, batch);
    const slow = processor('slow', slowed(broker, 3 * LOCK_SECONDS * 1000));
    const claimedAt = Date.now();
    const publishing = slow.tick();
    await waitFor(async () => (await mine('processing')).length === 20, 5_000, 'the slow processor to claim the batch');

    const rival = processor('rival');
    await rival.start();
    // Halfway through the publish, past the claim's own lock: renewed, still held.
    await new Promise((resolve) => setTimeout(resolve, 1.5 * LOCK_SECONDS * 1000));
    const midway = await mine('processing');
    expect(midway).toHaveLength(20);
    for (const row of midway) {
      expect(row.lockedBy).toBe('slow');
      expect(row.lockedUntil!.getTime()).toBeGreaterThan(claimedAt + LOCK_SECONDS * 1000);
    }

    const result = await publishing;
    expect(result).toMatchObject({ claimed: 20, published: 20, lostLocks: 0 });
    expect(await mine('published')).toHaveLength(20);
    expect((await rival.metrics()).totals).toMatchObject({ published: 0, lostLocks: 0 });
    // Each message reached the stream once: nobody published the batch a second time.
    const ids = (await drainStream(broker, 'conformance::thing')).map((e) => e.metadata.headers.id);
    expect(ids.sort()).toEqual(batch.map((r) => r.messageId).sort());
    expect((await slow.metrics()).heldRows).toBe(0);
  });

  it('the heartbeat stops with the batch: rows released or recorded are not renewed afterwards', async () => {
    await appendCommitted(provider, [rows.row('a', 1)]);
    const relay = processor('quick');
    expect(await relay.tick()).toMatchObject({ claimed: 1, published: 1 });
    expect((await relay.metrics()).heldRows).toBe(0);
    const [row] = await mine('published');
    expect(row).toMatchObject({ lockedBy: null, lockedUntil: null });
  });
});
