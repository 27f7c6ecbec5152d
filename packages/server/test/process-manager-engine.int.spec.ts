/**
 * A process manager served on PostgreSQL and Redis, across a restart: timeouts scheduled while one
 * server ran fire once, after it stopped, in the server that replaced it; a process completed before
 * its deadline never sees its timeout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { processManagerStream, type Domain } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeFulfilment, type Fulfil } from '../../core/test/support/fulfilment-domain.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

async function started(f: Fulfil, orderId: string): Promise<boolean> {
  const record = f.domain.registry.requireRecord(f.Fulfilment, 'processManager');
  return (await f.domain.providers.get('default')!.eventStore.streamVersion(processManagerStream(record, orderId))) >= 0;
}

describe.skipIf(!up)('process managers in the server on PostgreSQL and Redis', () => {
  let db: TempDatabase;
  const engines: Engine[] = [];
  let logs: ReturnType<typeof captureLogs>;
  beforeAll(async () => {
    db = await createTempDatabase();
    logs = captureLogs();
  });
  const prefixes: string[] = [];
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    const redis = new Redis(REDIS_URI);
    for (const prefix of prefixes.splice(0)) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    redis.disconnect();
  });
  afterAll(async () => {
    logs.restore();
    await db?.drop();
  });

  function server(prefix: string): Fulfil {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pm-'));
    const config = {
      databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
      brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
      event_processing: 'async',
      outbox: { tick_interval: 0.1 },
      server: { health: { port: 0 }, stream_subscription: { blocking_timeout_ms: 100 } },
    };
    return makeFulfilment({ name: 'Pmr', timeoutAfter: (customer) => (customer === 'late' ? '3s' : '1h'), domainOptions: { root, config } });
  }
  async function setupTables(domain: Domain): Promise<void> {
    await domain.init();
    for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  }
  async function start(f: Fulfil): Promise<Engine> {
    await setupTables(f.domain);
    const engine = new Engine(f.domain, { health: false, drain: { intervalMs: 50, quietChecks: 3 } });
    engines.push(engine);
    await engine.start();
    return engine;
  }

  it('timeouts scheduled before a restart fire once, after it; a completed process drops its own', async () => {
    const prefix = uniquePrefix('pm');
    prefixes.push(prefix);
    const first = server(prefix);
    const firstEngine = await start(first);
    const place = (customer: string) =>
      first.domain.uow(async () => {
        const order = first.Order.create({ customer });
        order.place();
        await first.domain.repositoryFor(first.Order).add(order);
        return order.id;
      });
    const late = [await place('late'), await place('late')];
    const paid = await place('paid');
    // Started means committed: the transition is in the event store (the call is recorded before the commit).
    await eventually(async () => (await Promise.all([...late, paid].map((id) => started(first, id)))).every(Boolean), 10_000);
    await first.domain.uow(async () => {
      const payment = first.Payment.create({ forOrder: paid });
      payment.receive();
      await first.domain.repositoryFor(first.Payment).add(payment);
    });
    // The handler records its call before its transaction commits: wait for the committed state.
    const waiting = async () =>
      (await first.domain.providers.get('default')!.outbox.list({ status: 'scheduled', limit: 100 })).map((row) => String(row.envelope.data.orderId)).sort();
    await eventually(async () => JSON.stringify(await waiting()) === JSON.stringify([...late].sort()), 10_000);
    expect(first.calls).toContain(`paid ${paid}`);
    await firstEngine.stop();

    const second = server(prefix);
    const secondEngine = await start(second);
    await eventually(() => late.every((id) => second.calls.includes(`timed out ${id}`)), 15_000);
    expect((await secondEngine.waitUntilDrained(15_000)).drained).toBe(true);

    const calls = [...first.calls, ...second.calls];
    for (const id of late) expect(calls.filter((call) => call === `timed out ${id}`)).toHaveLength(1);
    expect(calls).not.toContain(`timed out ${paid}`);
    const rows = await second.domain.providers.get('default')!.outbox.list({ limit: 1000 });
    const timeouts = rows.filter((row) => row.messageType === 'Pmr.PaymentTimedOut.v1');
    expect(timeouts.map((row) => row.envelope.data.orderId).sort()).toEqual([...late].sort());
    for (const row of timeouts) {
      expect(row.status).toBe('published');
      expect(row.publishedAt!.getTime()).toBeGreaterThanOrEqual(row.deliverAt!.getTime());
    }
    expect(
      rows
        .filter((row) => row.messageType === 'Pmr.CancelOrder.v1')
        .map((row) => row.envelope.data.orderId)
        .sort(),
    ).toEqual([...late].sort());
    expect(rows.filter((row) => row.messageType === 'Pmr.ConfirmOrder.v1').map((row) => row.envelope.data.orderId)).toEqual([paid]);
  });
});
