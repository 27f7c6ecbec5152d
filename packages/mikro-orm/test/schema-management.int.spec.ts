/**
 * The provider's schema operations: setup creates the PostgreSQL schema (namespace), every table
 * and the outbox, and is safe to repeat; drop and truncate touch only what exists; the
 * LISTEN/NOTIFY hub delivers notifications, also after its connection was killed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { BaseAggregate, Domain, field } from '@protean-ts/core';
import { MappingError, PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';
import { Order, OrderLine, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL schema management', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  const schema = shop.aggregateSchemaFor(Order);
  const tables = async (ns: string) =>
    (await queryDatabase<{ t: string }>(db.uri, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [ns])).map(
      (r) => r.t,
    );

  beforeAll(async () => {
    db = await createTempDatabase();
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 3, schema: 'shop_ns' });
    await provider.connect();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  it('creates the schema, every table and the outbox, and changes nothing when run again', async () => {
    const first = await provider.setupSchema([schema], { outbox: true });
    expect(first.created.sort()).toEqual([
      'line_note',
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
      'shipment',
    ]);
    expect(first.existing).toEqual([]);
    expect(await tables('shop_ns')).toEqual([
      'line_note',
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
      'shipment',
    ]);
    expect(await tables('public')).toEqual([]);
    const second = await provider.setupSchema([schema], { outbox: true });
    expect(second.created).toEqual([]);
    expect(second.existing.sort()).toEqual([
      'line_note',
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
      'shipment',
    ]);
  });

  it('adds the tables of a new aggregate next to existing ones', async () => {
    const domain = new Domain('Extra');
    @domain.aggregate({ schemaName: 'invoice' })
    class Invoice extends BaseAggregate {
      @field.string({ required: true }) number!: string;
    }
    const report = await provider.setupSchema([schema, domain.aggregateSchemaFor(Invoice)], { outbox: false });
    expect(report.created).toEqual(['invoice']);
    expect(report.existing).toContain('order');
  });

  it('adds a column a new version of an aggregate declares, keeping the rows', async () => {
    const v1 = new Domain('V1');
    @v1.aggregate({ schemaName: 'ticket' })
    class Ticket extends BaseAggregate {
      @field.string({ required: true }) title!: string;
    }
    await provider.setupSchema([v1.aggregateSchemaFor(Ticket)], { outbox: false });
    await provider.dao(v1.aggregateSchemaFor(Ticket)).save(Ticket.create({ title: 'kept' }), -1);
    // The same aggregate (same class name) after a release that added a field.
    const v2 = new Domain('V2');
    const next = (() => {
      @v2.aggregate({ schemaName: 'ticket' })
      class Ticket extends BaseAggregate {
        @field.string({ required: true }) title!: string;
        @field.integer() priority?: number;
      }
      return v2.aggregateSchemaFor(Ticket);
    })();
    const report = await provider.setupSchema([next], { outbox: false });
    expect(report).toEqual({ created: [], existing: ['ticket'] });
    const [stored] = await provider.dao(next).query({});
    expect([stored!.title, stored!.priority ?? null]).toEqual(['kept', null]);
  });

  it('refuses two aggregates mapped to one table of the same database', async () => {
    const domain = new Domain('Clash');
    @domain.aggregate({ schemaName: 'order' })
    class Purchase extends BaseAggregate {
      @field.string() note?: string;
    }
    await expect(provider.setupSchema([domain.aggregateSchemaFor(Purchase)], { outbox: false })).rejects.toThrow(MappingError);
    await expect(provider.setupSchema([domain.aggregateSchemaFor(Purchase)], { outbox: false })).rejects.toThrow(
      /Purchase and Order both map to table 'order'/,
    );
  });

  it('empties the tables and the outbox with truncate, keeping them', async () => {
    const repoDao = provider.dao(schema);
    await repoDao.save(Order.create({ customer: 'Ann' }), -1);
    await provider.execute(
      `INSERT INTO ${provider.qualify('protean_outbox')} (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, max_retries) VALUES ('m', 's', 'p', 1, 't', '{}', '{}', 'default', 3)`,
    );
    const emptied = await provider.truncate([schema]);
    expect(emptied.sort()).toEqual([
      'line_note',
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
      'shipment',
    ]);
    expect(await repoDao.count()).toBe(0);
    expect((await provider.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${provider.qualify('protean_outbox')}`)).rows[0]!.n).toBe(0);
  });

  it('drops only what exists and reports it', async () => {
    const dropped = await provider.dropSchema([schema]);
    expect(dropped.sort()).toEqual([
      'line_note',
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
      'shipment',
    ]);
    expect(await tables('shop_ns')).toEqual(['invoice', 'ticket']);
    expect(await provider.dropSchema([schema])).toEqual([]);
    expect(await provider.truncate([schema])).toEqual([]);
  });

  it('creates only the outbox table with setupOutbox', async () => {
    const messaging = [
      'protean_outbox',
      'protean_outbox_positions',
      'protean_inbox_checkpoints',
      'protean_inbox_passed',
      'protean_inbox_messages',
      'protean_command_outcomes',
      'protean_projections',
      'protean_partition_members',
      'protean_partition_leases',
      'protean_events',
      'protean_event_streams',
      'protean_snapshots',
      'protean_event_store_subscriptions',
      'protean_event_store_dead_letters',
    ];
    expect(await provider.setupOutbox()).toEqual({ created: messaging, existing: [] });
    expect(await provider.setupOutbox()).toEqual({ created: [], existing: messaging });
  });

  it('keeps working on the same connections after the tables were dropped and created again (prepared statements re-plan)', async () => {
    const single = new PostgresProvider('single', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 1, schema: 'replan_ns' });
    await single.connect();
    try {
      await single.setupSchema([schema], { outbox: false });
      const dao = single.dao(schema);
      const first = Order.create({ customer: 'Ann', lines: [OrderLine.create({ sku: 'A', quantity: 1 })] });
      await dao.save(first, -1);
      expect((await dao.get(first.id))!.customer).toBe('Ann');
      await single.dropSchema([schema]);
      await single.setupSchema([schema], { outbox: false });
      const second = Order.create({ customer: 'Bo', lines: [OrderLine.create({ sku: 'B', quantity: 2 })] });
      await dao.save(second, -1);
      expect(await dao.get(first.id)).toBeUndefined();
      expect((await dao.get(second.id))!.lines!.map((l) => l.sku)).toEqual(['B']);
    } finally {
      await single.close();
    }
  });

  it('delivers NOTIFY payloads to listeners, also after the listening connection is killed', async () => {
    const received: string[] = [];
    const stop = await provider.listen('pt_test_channel', (payload) => received.push(payload));
    await provider.execute(`SELECT pg_notify('pt_test_channel', 'one')`);
    await until(() => received.includes('one'));
    await queryDatabase(db.uri, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%'`, [db.name]);
    await until(async () => {
      await provider.execute(`SELECT pg_notify('pt_test_channel', 'two')`);
      return received.includes('two');
    });
    await stop();
    const before = received.length;
    await provider.execute(`SELECT pg_notify('pt_test_channel', 'three')`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.length).toBe(before);
  });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
