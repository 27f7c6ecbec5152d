/**
 * Every field kind round-trips through PostgreSQL with its own column type: scalars typed,
 * value objects embedded as prefixed columns (nested ones too), lists and dicts as jsonb.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import type { AggregateDao } from '@protean-ts/core';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { queryDatabase } from './support/temp-database.js';
import { Address, GeoPoint, LineNote, Order, OrderLine, Shipment, Tag, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL field mapping', () => {
  const fixture = new ProviderFixture();
  const schema = shop.aggregateSchemaFor(Order);
  let dao: AggregateDao<Order>;
  beforeAll(() => fixture.start());
  afterAll(() => fixture.stop());
  beforeEach(async () => {
    dao = (await fixture.fresh([schema])).dao(schema);
  });

  const columns = async (table: string) =>
    Object.fromEntries(
      (
        await queryDatabase<{ column_name: string; type: string; is_nullable: string }>(
          fixture.db.uri,
          `SELECT column_name, format_type(atttypid, atttypmod) AS type, is_nullable
           FROM information_schema.columns c JOIN pg_attribute a ON a.attname = c.column_name
           AND a.attrelid = ('public.' || quote_ident(c.table_name))::regclass
          WHERE table_schema = 'public' AND table_name = $1`,
          [table],
        )
      ).map((r) => [r.column_name, `${r.type}${r.is_nullable === 'NO' ? ' not null' : ''}`]),
    );

  const everything = () =>
    Order.create({
      customer: 'Ann',
      code: 'C-1',
      notes: 'ünïcödé ✓ "quoted" \'single\' and a ? mark',
      quantity: 2 ** 40,
      weight: 0.1 + 0.2,
      total: 1234567890.12,
      gift: false,
      dueOn: new Date('2024-02-29T00:00:00.000Z'),
      placedAt: new Date('2024-05-01T10:11:12.345Z'),
      externalId: 'ext-1',
      customerId: 'customer-1',
      status: 'PLACED',
      tags: ['b', 'a', ''],
      labels: [Tag.create({ label: 'x' }), Tag.create({ label: 'y' })],
      extra: { nested: { list: [1, 'two', null, true] }, empty: {} },
      shippingAddress: Address.create({ street: 'Main 1', city: 'Oslo', location: GeoPoint.create({ lat: 59.91, lng: 10.75 }) }),
      lines: [OrderLine.create({ sku: 'A', quantity: 1, lineNotes: [LineNote.create({ text: 'fragile' })] })],
      shipment: Shipment.create({ carrier: 'UPS', shippedAt: new Date('2024-05-02T00:00:00.001Z') }),
    });

  it('round-trips every field kind with a value', async () => {
    const order = everything();
    await dao.save(order, -1);
    const loaded = (await dao.get(order.id))!;
    expect(loaded.toPlain()).toEqual(order.toPlain());
    expect(loaded.quantity).toBe(2 ** 40);
    expect(loaded.weight).toBe(0.1 + 0.2);
    expect(loaded.total).toBe(1234567890.12);
    expect(loaded.gift).toBe(false);
    expect(loaded.placedAt).toEqual(new Date('2024-05-01T10:11:12.345Z'));
    expect(loaded.shippingAddress).toBeInstanceOf(Address);
    expect(loaded.shippingAddress!.location).toBeInstanceOf(GeoPoint);
    expect(loaded.labels![1]).toBeInstanceOf(Tag);
    expect(loaded.lines![0]!.lineNotes![0]).toBeInstanceOf(LineNote);
  });

  it('round-trips an aggregate whose optional fields are all missing', async () => {
    const bare = Order.create({ customer: 'Bo' });
    await dao.save(bare, -1);
    const loaded = (await dao.get(bare.id))!;
    expect(loaded.toPlain()).toEqual(bare.toPlain());
    expect(loaded.shippingAddress ?? null).toBeNull();
    expect(loaded.shipment ?? null).toBeNull();
    expect(loaded.lines).toEqual([]);
  });

  it('tells an absent nested value object from a present one', async () => {
    const order = Order.create({ customer: 'Cy', shippingAddress: Address.create({ street: 'Side 2' }) });
    await dao.save(order, -1);
    const loaded = (await dao.get(order.id))!;
    expect(loaded.shippingAddress!.street).toBe('Side 2');
    expect(loaded.shippingAddress!.location ?? null).toBeNull();
  });

  it('gives each scalar kind its own column type and embeds value objects as prefixed columns', async () => {
    expect(await columns('order')).toMatchObject({
      id: 'character varying(255) not null',
      customer: 'character varying(50) not null',
      code: 'character varying(255)',
      notes: 'text',
      quantity: 'bigint',
      weight: 'double precision',
      total: 'numeric(12,2)',
      gift: 'boolean',
      due_on: 'date',
      placed_at: 'timestamp with time zone',
      external_id: 'character varying(255)',
      customer_id: 'character varying(255)',
      status: 'character varying(50)',
      tags: 'jsonb',
      labels: 'jsonb',
      extra: 'jsonb',
      shipping_address_street: 'character varying(255)',
      shipping_address_city: 'character varying(255)',
      shipping_address_location_lat: 'double precision',
      shipping_address_location_lng: 'double precision',
      _version: 'integer not null',
    });
    expect(await columns('order_line')).toMatchObject({
      id: 'character varying(255) not null',
      sku: 'character varying(255) not null',
      quantity: 'bigint',
      order_id: 'character varying(255) not null',
      _position: 'integer not null',
    });
    expect(await columns('line_note')).toMatchObject({ text: 'text not null', order_line_id: 'character varying(255) not null' });
    expect(await columns('shipment')).toMatchObject({
      carrier: 'character varying(255) not null',
      shipped_at: 'timestamp with time zone',
      order_id: 'character varying(255) not null',
    });
  });

  it('stores values as SQL sees them, so other tools can read the tables', async () => {
    const order = everything();
    await dao.save(order, -1);
    const [row] = await queryDatabase(
      fixture.db.uri,
      `SELECT quantity::text, total::text, due_on::text, placed_at = '2024-05-01T10:11:12.345Z'::timestamptz AS placed, tags, extra -> 'nested' -> 'list' AS list, shipping_address_city, _version FROM "order" WHERE id = $1`,
      [order.id],
    );
    expect(row).toEqual({
      quantity: String(2 ** 40),
      total: '1234567890.12',
      due_on: '2024-02-29',
      placed: true,
      tags: ['b', 'a', ''],
      list: [1, 'two', null, true],
      shipping_address_city: 'Oslo',
      _version: 0,
    });
  });
});
