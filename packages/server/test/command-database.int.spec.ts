/**
 * Asynchronous commands in their aggregate's database, end to end on PostgreSQL and Redis: the
 * sender (a domain of its own, like a web process) queues the command and its pending outcome in
 * the "orders" database its aggregate lives in, the Engine's relay of that database publishes it,
 * its handler runs and records the outcome there, and nothing is written to any other database —
 * also when the domain has no "default" database of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  CommandRefusedError,
  configureLogging,
  Domain,
  field,
  handle,
  type ConfigOverrides,
} from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

/** The tables the framework writes for commands, relaying and handling: all empty in a database no command uses. */
const FRAMEWORK_TABLES = ['protean_outbox', 'protean_command_outcomes', 'protean_inbox_checkpoints', 'protean_inbox_passed', 'protean_inbox_messages'];

/** Orders live in the "orders" database; PlaceOrder creates one, Jam always fails (transiently). */
function makePlacement(config: ConfigOverrides) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-command-db-'));
  const domain = new Domain('Placement', { root, config });
  const probe = { jams: 0 };

  @domain.aggregate({ provider: 'orders' })
  class Order extends BaseAggregate {
    @field.string({ required: true }) customer!: string;
  }

  @domain.command({ partOf: Order })
  class PlaceOrder extends BaseCommand {
    @field.string({ required: true }) customer!: string;
  }

  @domain.command({ partOf: Order })
  class Jam extends BaseCommand {
    @field.string() note?: string;
  }

  @domain.commandHandler({ partOf: Order })
  class OrderCommands extends BaseCommandHandler {
    @handle(PlaceOrder) async place(command: PlaceOrder): Promise<{ orderId: string }> {
      const order = Order.create({ customer: command.customer });
      await domain.repositoryFor(Order).add(order);
      return { orderId: order.id };
    }

    @handle(Jam) async jam(): Promise<void> {
      probe.jams += 1;
      throw new Error('the printer jammed');
    }
  }

  return { domain, probe, Order, PlaceOrder, Jam, OrderCommands };
}

async function setupTables(domain: Domain): Promise<void> {
  await domain.init();
  const schemas = domain.runtime.infrastructure.aggregateSchemas();
  for (const [name, provider] of domain.providers) {
    await provider.setupSchema(
      schemas.filter((schema) => schema.provider === name),
      { outbox: true },
    );
  }
}

describe.skipIf(!up)('asynchronous commands in their aggregate’s database (PostgreSQL, Redis)', () => {
  let main: TempDatabase;
  let orders: TempDatabase;
  let engine: Engine | null = null;
  let sender: Domain | null = null;
  let logs: ReturnType<typeof captureLogs>;
  let restoreLevel = () => {};

  const postgres = (db: TempDatabase) => ({ provider: 'postgresql', database_uri: db.uri, pool_size: 4 });
  const config = (databases: Record<string, unknown>, label: string): ConfigOverrides => ({
    databases,
    brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: uniquePrefix(label) } },
    // The inbox too, so a domain whose data all lives in "orders" writes nothing elsewhere.
    inbox: { database: 'orders' },
    server: { stream_subscription: { blocking_timeout_ms: 100, max_retries: 1, retry_delay_seconds: 0.05, enable_dlq: true } },
    outbox: { tick_interval: 0.2 },
  });
  const count = async (db: TempDatabase, table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

  beforeAll(async () => {
    [main, orders] = await Promise.all([createTempDatabase(), createTempDatabase()]);
  });
  afterAll(async () => {
    await Promise.all([main?.drop(), orders?.drop()]);
  });
  afterEach(async () => {
    await engine?.stop();
    await sender?.close();
    engine = null;
    sender = null;
    logs?.restore();
    restoreLevel();
  });

  async function start(settings: ConfigOverrides) {
    logs = captureLogs();
    // Debug too: the outcome janitor says which database it cleaned even when nothing went.
    const previous = configureLogging({ level: 'debug' });
    restoreLevel = () => void configureLogging({ level: previous.level });
    const server = makePlacement(settings);
    await setupTables(server.domain);
    engine = new Engine(server.domain, { health: false });
    await engine.start();
    const web = makePlacement(settings);
    sender = web.domain;
    await sender.init();
    return { server, web };
  }

  it('queues the command and its outcome in "orders", relays and handles it from there, and writes nothing to "default"', async () => {
    const { web } = await start(config({ default: postgres(main), orders: postgres(orders) }, 'cmd-db'));
    await setupTables(web.domain); // both databases have every table, so an empty one shows nothing went there

    const { orderId } = await web.domain.process<{ orderId: string }>(web.PlaceOrder.create({ customer: 'ann' }), {
      asynchronous: true,
      awaitOutcome: { timeoutMs: 20_000 },
      idempotencyKey: 'order-ann',
    });

    expect(await orders.query(`SELECT customer FROM "order" WHERE id = $1`, [orderId])).toEqual([{ customer: 'ann' }]);
    const [row] = await orders.query<{ stream_name: string; message_type: string }>('SELECT stream_name, message_type FROM protean_outbox');
    expect(row).toEqual({ stream_name: 'placement::order:command', message_type: 'Placement.PlaceOrder.v1' });
    await eventually(async () => (await orders.query(`SELECT status FROM protean_outbox`))[0]?.status === 'published');
    expect(await orders.query('SELECT status, idempotency_key FROM protean_command_outcomes')).toEqual([{ status: 'succeeded', idempotency_key: 'order-ann' }]);
    for (const table of FRAMEWORK_TABLES) expect({ table, rows: await count(main, table) }).toEqual({ table, rows: 0 });
    expect(logs.records.filter((r) => r.msg === 'command outcome cleanup removed nothing').map((r) => r.database)).toEqual(['orders']);
  });

  it('records a command the subscription gave up on as refused in "orders", for the waiting sender', async () => {
    const { server, web } = await start(config({ default: postgres(main), orders: postgres(orders) }, 'cmd-db-jam'));
    const outcome = web.domain.process(web.Jam.create({ note: 'x' }), { asynchronous: true, awaitOutcome: { timeoutMs: 20_000 } });
    await expect(outcome).rejects.toBeInstanceOf(CommandRefusedError);
    await expect(outcome).rejects.toMatchObject({ errorMessage: 'the printer jammed', command: 'Jam' });
    expect(server.probe.jams).toBeGreaterThanOrEqual(2);
    expect(await orders.query(`SELECT status FROM protean_command_outcomes WHERE command_type = 'Placement.Jam.v1'`)).toEqual([{ status: 'refused' }]);
    for (const table of FRAMEWORK_TABLES) expect({ table, rows: await count(main, table) }).toEqual({ table, rows: 0 });
  });

  it('works in a domain with no "default" database of its own (left in memory): the command crosses processes through "orders"', async () => {
    const { web } = await start(config({ orders: postgres(orders) }, 'cmd-db-nodefault'));
    const { orderId } = await web.domain.process<{ orderId: string }>(web.PlaceOrder.create({ customer: 'bo' }), {
      asynchronous: true,
      awaitOutcome: { timeoutMs: 20_000 },
    });
    expect(await orders.query(`SELECT customer FROM "order" WHERE id = $1`, [orderId])).toEqual([{ customer: 'bo' }]);
    expect(await web.domain.providers.get('default')!.outbox.list({ limit: 10 })).toEqual([]);
  });
});
