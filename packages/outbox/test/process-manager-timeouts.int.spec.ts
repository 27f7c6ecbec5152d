/**
 * Process managers on PostgreSQL: concurrent events of one instance lose no update, and durable
 * timeouts fire once due (not before), after a restart, exactly once with several processors,
 * and not at all once the process completed first. Redis carries what the processors publish.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { configureLogging, processManagerStream, type OutboxRow, type ProcessManagerRecord, type ProcessManagerTransition } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { OutboxProcessor } from '../src/index.js';
import { makeFulfilment, type Fulfil } from '../../core/test/support/fulfilment-domain.js';
import { outboxConfig, waitFor } from './support/processor-fixtures.js';
import { createTempDatabase, drainStream, REDIS_URI, redisBroker, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('process managers on PostgreSQL', () => {
  // A database per test: every test starts from empty tables.
  const dbs: TempDatabase[] = [];
  let db: TempDatabase;
  let redis: Redis;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const open: Fulfil[] = [];

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    redis = new Redis(REDIS_URI);
  });
  beforeEach(async () => {
    db = await createTempDatabase('pm_timeouts');
    dbs.push(db);
  });
  afterEach(async () => {
    for (const f of open.splice(0)) await f.domain.close();
  });
  afterAll(async () => {
    for (const each of dbs) await each.drop();
    redis?.disconnect();
    configureLogging(restoreLogging);
  });

  async function start(timeoutAfter?: string): Promise<Fulfil> {
    const f = makeFulfilment({ timeoutAfter });
    await f.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 12 } },
        brokers: { default: { provider: 'inline' } },
        event_processing: 'async',
      },
    });
    await provider(f).setupSchema(f.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    open.push(f);
    return f;
  }
  const provider = (f: Fulfil) => f.domain.providers.get('default') as PostgresProvider;
  const rowsOf = async (f: Fulfil, type: string, status?: OutboxRow['status']) =>
    (await provider(f).outbox.list({ limit: 100_000, ...(status ? { status } : {}) })).filter((row) => row.messageType === `Fulfil.${type}.v1`);
  async function transitions(f: Fulfil, orderId: string): Promise<ProcessManagerTransition[]> {
    const record = f.domain.registry.requireRecord(f.Fulfilment, 'processManager') as ProcessManagerRecord;
    return (await provider(f).eventStore.readStream(processManagerStream(record, orderId), { limit: 1000 })).map(
      (e) => e.data as unknown as ProcessManagerTransition,
    );
  }
  async function placeOrder(f: Fulfil): Promise<string> {
    return f.domain.uow(async () => {
      const order = f.Order.create({ customer: 'Ann' });
      order.place();
      await f.domain.repositoryFor(f.Order).add(order);
      return order.id;
    });
  }
  /** Hands every event row of `type` to the manager, as its subscription would. */
  async function deliver(f: Fulfil, type: string): Promise<void> {
    for (const row of await rowsOf(f, type)) await f.domain.handleMessage(row.envelope, { handler: f.Fulfilment });
  }

  it('two workers handling events of one process at once lose no update (version conflicts rerun the unit of work)', async () => {
    const f = await start();
    const orderId = await placeOrder(f);
    await deliver(f, 'OrderPlaced');
    for (let i = 0; i < 12; i++) {
      await f.domain.uow(async () => {
        const order = await f.domain.repositoryFor(f.Order).get(orderId);
        order.note(`n${i}`);
        await f.domain.repositoryFor(f.Order).add(order);
      });
    }
    const notes = await rowsOf(f, 'OrderNoted');
    expect(notes).toHaveLength(12);
    // A second domain on the same database plays the other worker.
    const g = await start();
    await Promise.all(notes.map((row, i) => (i % 2 === 0 ? f : g).domain.handleMessage(row.envelope, { handler: (i % 2 === 0 ? f : g).Fulfilment })));
    const all = await transitions(f, orderId);
    expect(all).toHaveLength(13);
    expect([...(all.at(-1)!.state.notes as string[])].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`).sort());
  });

  it('a timeout survives a restart, is published once due and not before, exactly once by three processors', async () => {
    const first = await start('1500ms');
    const orders = [await placeOrder(first), await placeOrder(first), await placeOrder(first)];
    await deliver(first, 'OrderPlaced');
    const scheduled = await rowsOf(first, 'PaymentTimedOut', 'scheduled');
    expect(scheduled).toHaveLength(3);
    for (const row of scheduled) expect(row.deliverAt!.getTime() - row.createdAt.getTime()).toBeGreaterThanOrEqual(1400);
    // The process that scheduled them stops before they are due; a new one starts.
    await first.domain.close();
    open.splice(open.indexOf(first), 1);

    const second = await start('1500ms');
    const prefix = streamPrefix('pm');
    const brokers = [redisBroker('default', prefix), redisBroker('default', prefix), redisBroker('default', prefix)];
    const processors = brokers.map(
      (broker, i) =>
        new OutboxProcessor({
          name: `outbox-processor-default-to-default-${i}`,
          store: provider(second).outbox,
          broker,
          config: outboxConfig({ tick_interval: 0.05 }),
          workerId: `pm-${i}`,
        }),
    );
    try {
      for (const broker of brokers) await broker.connect();
      for (const processor of processors) await processor.start();
      await waitFor(async () => (await rowsOf(second, 'PaymentTimedOut', 'published')).length === 3, 15_000, 'the three timeouts to be published');
      // Give the processors more rounds in which a duplicate could appear.
      const ticks = processors.map((p) => p.metrics().then((m) => m.totals.ticks));
      const before = await Promise.all(ticks);
      await waitFor(
        async () => (await Promise.all(processors.map((p) => p.metrics()))).every((m, i) => m.totals.ticks >= before[i]! + 5),
        10_000,
        'five more ticks',
      );
      const published = await drainStream(brokers[0]!, 'fulfil::order');
      const timeouts = published.filter((envelope) => envelope.metadata.headers.type === 'Fulfil.PaymentTimedOut.v1');
      expect(timeouts.map((envelope) => envelope.data.orderId).sort()).toEqual([...orders].sort());
      for (const row of await rowsOf(second, 'PaymentTimedOut', 'published'))
        expect(row.publishedAt!.getTime()).toBeGreaterThanOrEqual(row.deliverAt!.getTime());
      // Handled by the manager of the new process: each order is cancelled, each process completed.
      for (const envelope of timeouts) await second.domain.handleMessage(envelope, { handler: second.Fulfilment });
      expect((await rowsOf(second, 'CancelOrder')).map((row) => row.envelope.data.orderId).sort()).toEqual([...orders].sort());
      for (const orderId of orders) expect((await transitions(second, orderId)).at(-1)).toMatchObject({ completed: true });
      expect(second.calls.filter((call) => call.startsWith('timed out'))).toHaveLength(3);
    } finally {
      await Promise.all(processors.map((processor) => processor.stop()));
      for (const broker of brokers) await broker.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
  });

  it('completing the process first deletes its pending timeout in the same transaction', async () => {
    const f = await start('1h');
    const orderId = await placeOrder(f);
    const otherId = await placeOrder(f);
    await deliver(f, 'OrderPlaced');
    expect(await rowsOf(f, 'PaymentTimedOut', 'scheduled')).toHaveLength(2);
    await f.domain.uow(async () => {
      const payment = f.Payment.create({ forOrder: orderId });
      payment.receive();
      await f.domain.repositoryFor(f.Payment).add(payment);
    });
    await deliver(f, 'PaymentReceived');
    const left = await rowsOf(f, 'PaymentTimedOut');
    expect(left.map((row) => row.envelope.data.orderId)).toEqual([otherId]);
    expect((await transitions(f, orderId)).at(-1)).toMatchObject({ completed: true, state: { paid: true } });
    expect((await rowsOf(f, 'ConfirmOrder')).map((row) => row.envelope.data.orderId)).toEqual([orderId]);
  });
});
