/**
 * PostgreSQL becoming unreachable under a running processor (a proxy between them is cut): the
 * processor logs, waits and retries without throwing, and once the database is back it relays
 * everything committed meanwhile, woken again by NOTIFY or its poll.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, drainStream, outboxDatabase, redisBroker, streamPrefix, type TempDatabase } from './support/real-services.js';
import { TcpProxy } from './support/tcp-proxy.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('OutboxProcessor while PostgreSQL is unreachable', () => {
  let db: TempDatabase;
  let direct: PostgresProvider;
  let proxied: PostgresProvider;
  let proxy: TcpProxy;
  let broker: RedisBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_dbdown');
    direct = await outboxDatabase(db.uri, 'default');
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5432 });
    const url = new URL(db.uri);
    url.port = String(proxy.port);
    proxied = new PostgresProvider('default', { provider: 'postgresql', database_uri: url.toString(), managed: true, pool_size: 3 });
    broker = redisBroker(rows.broker, streamPrefix('dbdown'));
  });
  afterAll(async () => {
    await broker?.close();
    await proxied?.close().catch(() => undefined);
    await proxy?.close();
    await direct?.close();
    await db?.drop();
  });
  afterEach(() => logs?.restore());

  it('waits out the outage without crashing and relays everything afterwards', async () => {
    logs = captureLogs();
    const relay = new OutboxProcessor({
      name: 'dbdown-relay',
      store: proxied.outbox,
      broker,
      config: outboxConfig({ tick_interval: 0.2 }),
      workerId: 'dbdown-worker',
      databaseRetry: { initialMs: 100, maxMs: 400 },
    });
    await relay.start();
    try {
      await appendCommitted(direct, [rows.row('a', 1), rows.row('b', 1)]);
      await waitFor(async () => (await direct.outbox.counts(rows.broker)).published === 2, 10_000, 'the first rows');

      await proxy.cut();
      await appendCommitted(direct, [rows.row('a', 2), rows.row('b', 2), rows.row('c', 1)]);
      await waitFor(() => relay.state === 'database-unavailable', 10_000, 'the processor to notice');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(relay.state).toBe('database-unavailable');
      expect((await direct.outbox.counts(rows.broker)).pending).toBe(3);
      expect(logs.messages('error').filter((m) => m === 'database unreachable; the outbox processor will retry')).toHaveLength(1);
      const metrics = await relay.metrics();
      expect(metrics.pending).toBeNull();
      expect(metrics.countsError).toBeTruthy();

      await proxy.restore();
      await waitFor(async () => (await direct.outbox.counts(rows.broker)).published === 5, 20_000, 'the rows committed during the outage');
      expect(relay.state).toBe('running');
      expect(logs.messages('info')).toContain('database reachable again; resuming');

      // After the outage, commits still reach it.
      await appendCommitted(direct, [rows.row('a', 3)]);
      await waitFor(async () => (await direct.outbox.counts(rows.broker)).published === 6, 10_000, 'a row committed after the outage');
    } finally {
      await relay.stop();
    }
    const envelopes = await drainStream(broker, 'conformance::thing');
    expect(envelopes.filter((e) => e.metadata.headers.stream === rows.key('a')).map((e) => e.metadata.domain.sequenceId)).toEqual(['1.0', '2.0', '3.0']);
    expect(new Set(envelopes.map((e) => e.metadata.headers.id)).size).toBe(6);
  }, 60_000);
});
