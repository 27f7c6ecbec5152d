/**
 * collectStatus on a domain with a process manager, on PostgreSQL and Redis: open and ended
 * instances counted from the transition streams, scheduled timeouts from the outbox (a completed
 * instance's timeout is cancelled, so it is not counted; one whose time has come is past due),
 * and the same numbers as gauges at a scrape.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { processManagerStream } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { collectStatus } from '../src/status/collect-status.js';
import { installProcessMeterProvider } from '../src/metrics/process-meter-provider.js';
import { prometheusText } from '../src/metrics/prometheus-text.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeFulfilment, type Fulfil } from '../../core/test/support/fulfilment-domain.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('process managers in collectStatus on PostgreSQL', () => {
  let db: TempDatabase;
  let logs: ReturnType<typeof captureLogs>;
  const prefix = uniquePrefix('pmstatus');
  beforeAll(async () => {
    db = await createTempDatabase();
    logs = captureLogs();
  });
  afterAll(async () => {
    logs.restore();
    const redis = new Redis(REDIS_URI);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
  });

  function fulfilment(): Fulfil {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pm-status-'));
    const config = {
      databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
      brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
      event_processing: 'async',
      outbox: { tick_interval: 0.1 },
      server: { health: { port: 0 }, stream_subscription: { blocking_timeout_ms: 100 } },
    };
    return makeFulfilment({ name: 'Pms', timeoutAfter: '1h', domainOptions: { root, config } });
  }

  it('counts open and ended instances and the timeouts still scheduled', async () => {
    const f = fulfilment();
    await f.domain.init();
    for (const provider of f.domain.providers.values()) await provider.setupSchema(f.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });

    const before = await collectStatus(f.domain);
    expect(before.processManagers).toEqual([
      {
        processManager: 'Fulfilment',
        category: 'pms::fulfilment',
        instances: 0,
        ended: 0,
        transitionsCapped: false,
        dueTimeouts: 0,
        pastDueTimeouts: 0,
        timeoutsCapped: false,
      },
    ]);

    const processMetrics = installProcessMeterProvider();
    expect(processMetrics).not.toBeNull();
    const engine = new Engine(f.domain, { health: false, drain: { intervalMs: 50, quietChecks: 3 } });
    await engine.start();
    try {
      const place = () =>
        f.domain.uow(async () => {
          const order = f.Order.create({ customer: 'c' });
          order.place();
          await f.domain.repositoryFor(f.Order).add(order);
          return order.id;
        });
      const ids = [await place(), await place(), await place()];
      const record = f.domain.registry.requireRecord(f.Fulfilment, 'processManager');
      const store = f.domain.providers.get('default')!.eventStore;
      await eventually(
        async () => (await Promise.all(ids.map(async (id) => (await store.streamVersion(processManagerStream(record, id))) >= 0))).every(Boolean),
        10_000,
      );
      await f.domain.uow(async () => {
        const payment = f.Payment.create({ forOrder: ids[0] });
        payment.receive();
        await f.domain.repositoryFor(f.Payment).add(payment);
      });
      await eventually(async () => (await collectStatus(f.domain)).processManagers[0]?.ended === 1, 10_000);
      // Read while the engine runs: stopping it closes the domain's connections.
      const status = await collectStatus(f.domain);
      expect(status.processManagers).toEqual([
        {
          processManager: 'Fulfilment',
          category: 'pms::fulfilment',
          instances: 2,
          ended: 1,
          transitionsCapped: false,
          dueTimeouts: 2,
          pastDueTimeouts: 0,
          timeoutsCapped: false,
        },
      ]);
      // A bound below the manager's transitions gives no count rather than a wrong one.
      const capped = await collectStatus(f.domain, { maxTransitions: 2 });
      expect(capped.processManagers[0]).toMatchObject({ instances: null, ended: null, transitionsCapped: true, dueTimeouts: 2 });

      // The same numbers as gauges, at a scrape of the process's metrics.
      const text = prometheusText((await processMetrics!.collect()).resourceMetrics);
      expect(text).toContain(
        'protean_process_manager_instances{protean_process_manager="Fulfilment",protean_state="open",otel_scope_name="@protean-ts/server"} 2',
      );
      expect(text).toContain(
        'protean_process_manager_instances{protean_process_manager="Fulfilment",protean_state="ended",otel_scope_name="@protean-ts/server"} 1',
      );
      expect(text).toContain(
        'protean_process_manager_due_timeouts{protean_process_manager="Fulfilment",protean_timeout_past_due="false",otel_scope_name="@protean-ts/server"} 2',
      );
      expect(text).toContain(
        'protean_process_manager_due_timeouts{protean_process_manager="Fulfilment",protean_timeout_past_due="true",otel_scope_name="@protean-ts/server"} 0',
      );
    } finally {
      await engine.stop();
    }

    // A timeout whose time has come while no outbox processor runs is past due. (The stopped
    // engine closed the first domain: read with a fresh one on the same database.)
    const client = new pg.Client({ connectionString: db.uri });
    await client.connect();
    try {
      const moved = await client.query(
        "UPDATE protean_outbox SET deliver_at = now() - interval '1 minute' WHERE id = (SELECT min(id) FROM protean_outbox WHERE status = 'scheduled')",
      );
      expect(moved.rowCount).toBe(1);
    } finally {
      await client.end();
    }
    const later = fulfilment();
    await later.domain.init();
    try {
      expect((await collectStatus(later.domain)).processManagers[0]).toMatchObject({ instances: 2, ended: 1, dueTimeouts: 2, pastDueTimeouts: 1 });
    } finally {
      await later.domain.close();
    }
  }, 60_000);
});
