/**
 * A relay process stuck in a slow publish keeps its rows for as long as it lives (its heartbeat
 * renews `locked_until`), and once it is killed another processor takes them over within one
 * `outbox.lock_seconds`: not before the last renewed lock runs out, not much after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { spawnRelay } from './support/child-relay.js';
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

const up = await servicesUp(POSTGRES, REDIS);
const LOCK_SECONDS = 2;
const ROWS = 30;

describe.skipIf(!up)('a relay process holding rows, then killed', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let prefix: string;
  let broker: RedisBroker;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_lock_expiry');
    provider = await outboxDatabase(db.uri);
    prefix = streamPrefix('lock-expiry');
    broker = redisBroker(rows.broker, prefix);
    await broker.connect();
  });
  afterAll(async () => {
    await broker?.close();
    await provider?.close();
    await db?.drop();
  });

  /** Rows the given worker holds right now, read with a connection of its own. */
  async function heldBy(workerId: string): Promise<{ id: string; lockedUntil: Date }[]> {
    const client = new pg.Client({ connectionString: db.uri });
    await client.connect();
    try {
      const result = await client.query<{ id: string; locked_until: Date }>(
        "SELECT id::text, locked_until FROM protean_outbox WHERE status = 'processing' AND locked_by = $1",
        [workerId],
      );
      return result.rows.map((r) => ({ id: r.id, lockedUntil: r.locked_until }));
    } finally {
      await client.end();
    }
  }

  it('regression (lock never renewed): its rows stay its own while it lives and are claimed within lock_seconds of its death', async () => {
    const batch = Array.from({ length: ROWS }, (_, i) => rows.row(`k${i}`, 1));
    await appendCommitted(provider, batch);
    // A publish that would take ten minutes: the process holds its batch until it is killed.
    const victim = await spawnRelay({
      databaseUri: db.uri,
      redisUri: REDIS_URI,
      streamPrefix: prefix,
      broker: rows.broker,
      workerId: 'victim',
      lockSeconds: LOCK_SECONDS,
      messagesPerTick: 100,
      tickInterval: 0.2,
      publishDelayMs: 600_000,
    });
    let survivor: OutboxProcessor | undefined;
    try {
      await waitFor(async () => (await heldBy('victim')).length === ROWS, 20_000, 'the victim to claim the batch');
      const firstLock = Math.max(...(await heldBy('victim')).map((r) => r.lockedUntil.getTime()));

      survivor = new OutboxProcessor({
        name: 'survivor',
        store: provider.outbox,
        broker,
        workerId: 'survivor',
        config: outboxConfig({ lock_seconds: LOCK_SECONDS, messages_per_tick: 100 }),
      });
      await survivor.start();
      // Two locks long: without renewals the survivor would have taken the batch by now.
      await new Promise((resolve) => setTimeout(resolve, 2 * LOCK_SECONDS * 1000));
      const alive = await heldBy('victim');
      expect(alive).toHaveLength(ROWS);
      expect(Math.min(...alive.map((r) => r.lockedUntil.getTime()))).toBeGreaterThan(firstLock);
      expect((await survivor.metrics()).totals.published).toBe(0);

      victim.process.kill('SIGKILL');
      await victim.exited;
      // A heartbeat sent just before the kill still lands: read the locks it left once it has.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const left = await heldBy('victim');
      const lastLock = Math.max(...left.map((r) => r.lockedUntil.getTime()));
      const earliestLock = Math.min(...left.map((r) => r.lockedUntil.getTime()));

      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === ROWS, 15_000, 'the survivor to publish the batch');
      const published = (await provider.outbox.list({ status: 'published', limit: 1000 })).filter((r) => r.targetBroker === rows.broker);
      for (const row of published) {
        expect(row.retryCount).toBe(0);
        // Taken over only once the dead worker's lock had run out, and within about one lock after it.
        expect(row.publishedAt!.getTime()).toBeGreaterThanOrEqual(earliestLock);
        expect(row.publishedAt!.getTime()).toBeLessThan(lastLock + LOCK_SECONDS * 1000);
      }
      const ids = (await drainStream(broker, 'conformance::thing')).map((e) => e.metadata.headers.id);
      expect(ids.sort()).toEqual(batch.map((r) => r.messageId).sort());
    } finally {
      await survivor?.stop();
      if (victim.process.exitCode === null && victim.process.signalCode === null) victim.process.kill('SIGKILL');
      await victim.exited;
    }
  });
});
