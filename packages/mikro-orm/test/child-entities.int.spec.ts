/**
 * hasMany and hasOne entities live in child tables with a foreign key to their parent: they are
 * loaded and saved with the aggregate, in order, and adding, changing or removing one (at any
 * depth) is what the next load sees, with no orphan rows left behind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { UniqueViolationError, type AggregateDao } from '@protean-ts/core';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { queryDatabase } from './support/temp-database.js';
import { LineNote, Order, OrderLine, Shipment, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL child entities', () => {
  const fixture = new ProviderFixture();
  const schema = shop.aggregateSchemaFor(Order);
  let dao: AggregateDao<Order>;
  beforeAll(() => fixture.start());
  afterAll(() => fixture.stop());
  beforeEach(async () => {
    dao = (await fixture.fresh([schema])).dao(schema);
  });

  const rows = async (table: string) => (await queryDatabase<{ n: number }>(fixture.db.uri, `SELECT count(*)::int AS n FROM "${table}"`))[0]!.n;
  const line = (sku: string, notes: string[] = []) => OrderLine.create({ sku, quantity: 1, lineNotes: notes.map((text) => LineNote.create({ text })) });

  it('loads hasMany children in the order they were saved', async () => {
    const skus = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'd', 'k', 'e'];
    const order = Order.create({ customer: 'Ann', lines: skus.map((s) => line(s)) });
    await dao.save(order, -1);
    expect((await dao.get(order.id))!.lines!.map((l) => l.sku)).toEqual(skus);
  });

  it('saves added, changed and removed children, nested ones included', async () => {
    const order = Order.create({ customer: 'Ann', lines: [line('A', ['a1', 'a2']), line('B', ['b1'])], shipment: Shipment.create({ carrier: 'UPS' }) });
    await dao.save(order, -1);
    const loaded = (await dao.get(order.id))!;
    loaded.atomicChange(() => {
      const [a] = loaded.lines!;
      a!.quantity = 5;
      a!.lineNotes = [a!.lineNotes![1]!, LineNote.create({ text: 'a3' })];
      loaded.lines = [a!, line('C', ['c1'])];
      loaded.shipment!.carrier = 'DHL';
    });
    await dao.save(loaded, 0);
    const again = (await dao.get(order.id))!;
    expect(again.lines!.map((l) => [l.sku, l.quantity, l.lineNotes!.map((n) => n.text)])).toEqual([
      ['A', 5, ['a2', 'a3']],
      ['C', 1, ['c1']],
    ]);
    expect(again.lines![0]!.id).toBe(order.lines![0]!.id);
    expect(again.shipment!.carrier).toBe('DHL');
    expect(await rows('order_line')).toBe(2);
    expect(await rows('line_note')).toBe(3);
  });

  const xmins = async (table: string) =>
    (await queryDatabase<{ x: string }>(fixture.db.uri, `SELECT xmin::text AS x FROM "${table}" ORDER BY 1`)).map((r) => r.x);

  it('leaves the child rows alone when a save changed only the aggregate itself, and rewrites them once a child changes', async () => {
    const order = Order.create({ customer: 'Ann', lines: [line('A', ['a1', 'a2']), line('B')], shipment: Shipment.create({ carrier: 'UPS' }) });
    await dao.save(order, -1);
    const before = { lines: await xmins('order_line'), notes: await xmins('line_note'), shipment: await xmins('shipment') };

    const loaded = (await dao.get(order.id))!;
    loaded.atomicChange(() => {
      loaded.customer = 'Anne';
    });
    await dao.save(loaded, 0);
    // No transaction wrote the child rows again: each keeps the xmin of the insert.
    expect({ lines: await xmins('order_line'), notes: await xmins('line_note'), shipment: await xmins('shipment') }).toEqual(before);
    expect((await dao.get(order.id))!.customer).toBe('Anne');

    // Only a grandchild changes, on the same instance, saved again: the children are rewritten.
    loaded.atomicChange(() => {
      loaded.lines![0]!.lineNotes![1]!.text = 'a2, amended';
    });
    await dao.save(loaded, 1);
    const again = (await dao.get(order.id))!;
    expect(again.lines!.map((l) => [l.sku, l.lineNotes!.map((n) => n.text)])).toEqual([
      ['A', ['a1', 'a2, amended']],
      ['B', []],
    ]);
    expect(await xmins('line_note')).not.toEqual(before.notes);
    expect(again.customer).toBe('Anne');
  });

  it('replaces and removes a hasOne child', async () => {
    const order = Order.create({ customer: 'Ann', shipment: Shipment.create({ carrier: 'UPS' }) });
    await dao.save(order, -1);
    const loaded = (await dao.get(order.id))!;
    const replacement = Shipment.create({ carrier: 'FedEx' });
    loaded.atomicChange(() => {
      loaded.shipment = replacement;
    });
    await dao.save(loaded, 0);
    expect((await dao.get(order.id))!.shipment!.id).toBe(replacement.id);
    const again = (await dao.get(order.id))!;
    again.atomicChange(() => {
      again.shipment = undefined;
    });
    await dao.save(again, 1);
    expect((await dao.get(order.id))!.shipment ?? null).toBeNull();
    expect(await rows('shipment')).toBe(0);
  });

  it('deletes the children with their aggregate', async () => {
    const order = Order.create({ customer: 'Ann', lines: [line('A', ['n'])], shipment: Shipment.create({ carrier: 'UPS' }) });
    await dao.save(order, -1);
    await dao.save(Order.create({ customer: 'Other', lines: [line('B')] }), -1);
    expect(await dao.delete(order.id)).toBe(true);
    expect([await rows('order'), await rows('order_line'), await rows('line_note'), await rows('shipment')]).toEqual([1, 1, 0, 0]);
  });

  it('keeps the children of a stale update out, leaving the stored ones alone', async () => {
    const order = Order.create({ customer: 'Ann', lines: [line('A')] });
    await dao.save(order, -1);
    const stale = (await dao.get(order.id))!;
    const fresh = (await dao.get(order.id))!;
    fresh.atomicChange(() => {
      fresh.lines = [line('FRESH')];
    });
    await dao.save(fresh, 0);
    stale.atomicChange(() => {
      stale.lines = [line('STALE'), line('STALE2')];
    });
    await expect(dao.save(stale, 0)).rejects.toThrow(/changed concurrently/);
    expect((await dao.get(order.id))!.lines!.map((l) => l.sku)).toEqual(['FRESH']);
  });

  it('writes none of the children of a new aggregate whose identity is already stored', async () => {
    const first = Order.create({ customer: 'Ann', lines: [line('A', ['a1'])] });
    await dao.save(first, -1);
    const impostor = Order.create({ id: first.id, customer: 'Eve', lines: [line('X', ['x1']), line('Y')], shipment: Shipment.create({ carrier: 'DHL' }) });
    await expect(dao.save(impostor, -1)).rejects.toThrow(/already exists/);
    expect([await rows('order_line'), await rows('line_note'), await rows('shipment')]).toEqual([1, 1, 0]);
    expect((await dao.get(first.id))!.customer).toBe('Ann');
  });

  it('reports a child whose identity is already stored as a unique violation naming the entity', async () => {
    const shared = line('A');
    await dao.save(Order.create({ customer: 'Ann', lines: [shared] }), -1);
    const error = await dao
      .save(Order.create({ customer: 'Bo', lines: [OrderLine.create({ id: shared.id, sku: 'B', quantity: 1 })] }), -1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect(error).toMatchObject({ aggregate: 'OrderLine', field: 'id' });
    expect(await rows('order')).toBe(1);
  });

  it('saves an aggregate with thousands of children (batched inserts)', async () => {
    const many = Array.from({ length: 12_000 }, (_, i) => OrderLine.create({ sku: `S${i}`, quantity: 1 }));
    const order = Order.create({ customer: 'Bulk', lines: many });
    await dao.save(order, -1);
    const loaded = (await dao.get(order.id))!;
    expect(loaded.lines!.length).toBe(12_000);
    expect(loaded.lines![11_999]!.sku).toBe('S11999');
  });
});
