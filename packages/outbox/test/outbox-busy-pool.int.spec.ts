/**
 * A pool whose every connection stays busy (here: a transaction held open on a pool of one) is
 * load, not an outage: the processor's claim gets `PoolExhaustedError`, which it logs as a
 * warning naming the pool and its size, not as "database unreachable" at ERROR, and it relays as
 * soon as a connection is free.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, outboxDatabase, redisBroker, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('OutboxProcessor on a pool with no connection free', () => {
  let db: TempDatabase;
  let direct: PostgresProvider;
  let tiny: PostgresProvider;
  let broker: RedisBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_busypool');
    direct = await outboxDatabase(db.uri, 'default');
    tiny = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 1 });
    await tiny.connect();
    broker = redisBroker(rows.broker, streamPrefix('busypool'));
  });
  afterAll(async () => {
    await broker?.close();
    await tiny?.close();
    await direct?.close();
    await db?.drop();
  });
  afterEach(() => logs?.restore());

  it('logs a busy pool as a warning and relays once a connection is free', async () => {
    logs = captureLogs();
    await appendCommitted(direct, [rows.row('a', 1)]);
    const held = await tiny.begin();
    const relay = new OutboxProcessor({
      name: 'busypool-relay',
      store: tiny.outbox,
      broker,
      config: outboxConfig({ tick_interval: 0.2 }),
      workerId: 'busypool-worker',
      databaseRetry: { initialMs: 100, maxMs: 400 },
    });
    await relay.start();
    try {
      const warning = 'no database connection free in time; the outbox processor will retry';
      await waitFor(() => logs.messages('warn').includes(warning), 20_000, 'the busy-pool warning');
      const record = logs.records.find((r) => r.msg === warning)!;
      expect(String(record.error)).toMatch(/^\[databases\.default\] every connection of its pool \(pool_size = 1\) stayed busy for 10 s; .*raise pool_size/);
      await held.rollback();
      await waitFor(async () => (await direct.outbox.counts(rows.broker)).published === 1, 20_000, 'the row to be relayed');
      expect(logs.messages('error')).toEqual([]);
      // The connection came back: the pool serves statements again.
      expect((await tiny.execute<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await held.rollback();
      await relay.stop();
    }
  }, 60_000);
});
