/**
 * The behaviour every database adapter's `AggregateDao` must show, as a vitest suite adapters
 * run against their own provider (memory here, PostgreSQL in @protean-ts/mikro-orm): full
 * round trips of every field kind and child entities, optimistic versions, unique fields,
 * filters, ordering, paging, counting, deletes and transaction isolation.
 * Imports vitest, so only test files may import this module.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ExpectedVersionError,
  InvalidQueryError,
  UniqueViolationError,
  type CreateProps,
  type AggregateDao,
  type AggregateSchema,
  type DatabaseProvider,
} from '@protean-ts/core';
import { conformanceModel } from './dao-conformance-model.js';

export interface DaoConformanceHarness {
  /** A connected provider whose tables for `schemas` exist and are empty. Called before each test. */
  open(schemas: AggregateSchema[]): Promise<DatabaseProvider>;
  /** Called after each test with the provider `open` returned. */
  close?(provider: DatabaseProvider): Promise<void>;
}

export function describeAggregateDaoConformance(name: string, harness: DaoConformanceHarness): void {
  const model = conformanceModel();
  const { Item, Part, Label, Dimensions, schema } = model;
  type ItemT = InstanceType<typeof Item>;

  describe(`AggregateDao conformance: ${name}`, () => {
    let provider: DatabaseProvider;
    let dao: AggregateDao<ItemT>;

    beforeEach(async () => {
      provider = await harness.open([schema as AggregateSchema]);
      dao = provider.dao(schema);
    });
    afterEach(async () => {
      await harness.close?.(provider);
    });

    const full = () =>
      Item.create({
        name: 'Lamp',
        sku: `SKU-${Math.random().toString(36).slice(2, 10)}`,
        quantity: 3,
        price: 19.5,
        total: 58.5,
        active: true,
        seenAt: new Date('2024-05-01T10:11:12.345Z'),
        releasedOn: new Date('2024-04-30T00:00:00.000Z'),
        state: 'LIVE',
        notes: 'ünïcödé ✓ and "quotes"',
        tags: ['b', 'a'],
        attributes: { colour: 'red', nested: { depth: [1, 2] }, none: null },
        size: Dimensions.create({ width: 1.5, height: 2 }),
        parts: [Part.create({ code: 'P1', count: 1 }), Part.create({ code: 'P2', count: 2 })],
        label: Label.create({ text: 'hello' }),
      });
    const item = (props: Partial<CreateProps<ItemT>>) => Item.create({ name: 'x', ...props });
    async function saveAll(...items: ItemT[]): Promise<void> {
      for (const i of items) await dao.save(i, -1);
    }
    const names = (items: ItemT[]) => items.map((i) => i.name);

    describe('save and get', () => {
      it('round-trips every field kind, value objects and child entities', async () => {
        const original = full();
        await dao.save(original, -1);
        const loaded = (await dao.get(original.id))!;
        expect(loaded).toBeInstanceOf(Item);
        expect(loaded).not.toBe(original);
        expect(loaded.toPlain()).toEqual(original.toPlain());
        expect(loaded._version).toBe(0);
        expect(loaded.size).toBeInstanceOf(Dimensions);
        expect(loaded.parts![0]).toBeInstanceOf(Part);
        expect(loaded.label).toBeInstanceOf(Label);
        expect(loaded.seenAt).toEqual(new Date('2024-05-01T10:11:12.345Z'));
      });

      it('round-trips an aggregate with only its required fields', async () => {
        const bare = Item.create({ name: 'Bare' });
        await dao.save(bare, -1);
        expect((await dao.get(bare.id))!.toPlain()).toEqual(bare.toPlain());
      });

      it('returns undefined for an unknown id', async () => {
        expect(await dao.get('no-such-id')).toBeUndefined();
      });

      it('updates with the expected version and stores the next one', async () => {
        const original = full();
        await dao.save(original, -1);
        const loaded = (await dao.get(original.id))!;
        loaded.atomicChange(() => {
          loaded.name = 'Desk lamp';
          loaded.quantity = 4;
          loaded.parts = [loaded.parts![1]!, Part.create({ code: 'P3', count: 3 })];
          loaded.label = undefined;
          loaded.tags = ['c'];
        });
        await dao.save(loaded, 0);
        const again = (await dao.get(original.id))!;
        expect(again._version).toBe(1);
        expect(again.toPlain()).toEqual(loaded.toPlain());
        expect(again.parts!.map((p) => p.code)).toEqual(['P2', 'P3']);
        expect(again.label ?? null).toBeNull();
      });

      it('refuses to insert an aggregate that exists', async () => {
        const original = full();
        await dao.save(original, -1);
        await expect(dao.save(original, -1)).rejects.toThrow(ExpectedVersionError);
      });

      it('refuses a stale update and keeps the stored state', async () => {
        const original = full();
        await dao.save(original, -1);
        const first = (await dao.get(original.id))!;
        const second = (await dao.get(original.id))!;
        first.name = 'first';
        await dao.save(first, 0);
        second.name = 'second';
        const error = await dao.save(second, 0).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ExpectedVersionError);
        expect(error).toMatchObject({ aggregate: 'ConformanceItem', id: original.id, expectedVersion: 0, actualVersion: 1 });
        expect((await dao.get(original.id))!.name).toBe('first');
      });

      it('refuses to update an aggregate that is not stored', async () => {
        await expect(dao.save(full(), 2)).rejects.toThrow(ExpectedVersionError);
      });

      it('refuses a duplicate value of a unique field', async () => {
        await dao.save(item({ name: 'a', sku: 'SAME' }), -1);
        await expect(dao.save(item({ name: 'b', sku: 'SAME' }), -1)).rejects.toThrow(UniqueViolationError);
        expect(await dao.count()).toBe(1);
      });

      it('keeps no link between stored state and the objects handed in or out', async () => {
        const original = full();
        await dao.save(original, -1);
        original.name = 'changed after save';
        original.parts![0]!.code = 'ZZ';
        const loaded = (await dao.get(original.id))!;
        expect(loaded.name).toBe('Lamp');
        expect(loaded.parts![0]!.code).toBe('P1');
        loaded.name = 'changed after load';
        (loaded.attributes as Record<string, unknown>).colour = 'blue';
        const again = (await dao.get(original.id))!;
        expect(again.name).toBe('Lamp');
        expect(again.attributes).toMatchObject({ colour: 'red' });
      });
    });

    describe('delete', () => {
      it('deletes the aggregate with its children and says whether it was there', async () => {
        const original = full();
        await dao.save(original, -1);
        expect(await dao.delete(original.id)).toBe(true);
        expect(await dao.get(original.id)).toBeUndefined();
        expect(await dao.delete(original.id)).toBe(false);
        await dao.save(Item.create({ name: 'again', id: original.id }), -1);
        expect((await dao.get(original.id))!.parts ?? []).toEqual([]);
      });
    });

    describe('query and count', () => {
      beforeEach(async () => {
        await saveAll(
          item({ name: 'alpha', quantity: 1, price: 1.5, active: true, state: 'DRAFT', seenAt: new Date('2024-01-01T00:00:00Z'), sku: 's1' }),
          item({ name: 'beta', quantity: 2, price: 2.5, active: false, state: 'LIVE', seenAt: new Date('2024-02-01T00:00:00Z'), sku: 's2' }),
          item({ name: 'gamma', quantity: 3, price: 3.5, active: true, state: 'LIVE', seenAt: new Date('2024-03-01T00:00:00Z'), sku: 's3' }),
          item({ name: 'delta', quantity: 4, active: true, state: 'RETIRED', sku: 's4' }),
          item({ name: 'epsilon' }),
        );
      });
      const q = async (filter: Record<string, unknown>) => names(await dao.query({ filter, orderBy: { name: 'asc' } })).sort();

      it('matches a plain value and $eq', async () => {
        expect(await q({ state: 'LIVE' })).toEqual(['beta', 'gamma']);
        expect(await q({ quantity: { $eq: 3 } })).toEqual(['gamma']);
        expect(await q({ active: false })).toEqual(['beta']);
      });

      it('matches comparisons on numbers and dates', async () => {
        expect(await q({ quantity: { $gt: 2 } })).toEqual(['delta', 'gamma']);
        expect(await q({ quantity: { $gte: 2, $lt: 4 } })).toEqual(['beta', 'gamma']);
        expect(await q({ price: { $lte: 2.5 } })).toEqual(['alpha', 'beta']);
        expect(await q({ seenAt: { $gte: new Date('2024-02-01T00:00:00Z') } })).toEqual(['beta', 'gamma']);
      });

      it('matches $ne, $in, $nin and $like, leaving missing values out like SQL', async () => {
        expect(await q({ state: { $ne: 'LIVE' } })).toEqual(['alpha', 'delta']);
        expect(await q({ state: { $in: ['DRAFT', 'RETIRED'] } })).toEqual(['alpha', 'delta']);
        expect(await q({ quantity: { $nin: [1, 2] } })).toEqual(['delta', 'gamma']);
        expect(await q({ name: { $like: '%ta' } })).toEqual(['beta', 'delta']);
        expect(await q({ name: { $like: 'g_mma' } })).toEqual(['gamma']);
        expect(await q({ name: { $like: 'GAMMA' } })).toEqual([]);
      });

      it('matches missing values with null', async () => {
        expect(await q({ quantity: null })).toEqual(['epsilon']);
        expect(await q({ state: { $ne: null } })).toEqual(['alpha', 'beta', 'delta', 'gamma']);
      });

      it('combines conditions on several fields with AND', async () => {
        expect(await q({ active: true, quantity: { $gte: 3 } })).toEqual(['delta', 'gamma']);
      });

      it('orders by several keys, ascending and descending, missing values last when ascending', async () => {
        expect(names(await dao.query({ orderBy: { quantity: 'desc', name: 'asc' }, filter: { quantity: { $ne: null } } }))).toEqual([
          'delta',
          'gamma',
          'beta',
          'alpha',
        ]);
        expect(names(await dao.query({ orderBy: { state: 'asc', name: 'desc' } }))).toEqual(['alpha', 'gamma', 'beta', 'delta', 'epsilon']);
      });

      it('pages with limit and offset', async () => {
        expect(names(await dao.query({ orderBy: { name: 'asc' }, limit: 2 }))).toEqual(['alpha', 'beta']);
        expect(names(await dao.query({ orderBy: { name: 'asc' }, limit: 2, offset: 2 }))).toEqual(['delta', 'epsilon']);
        expect(names(await dao.query({ orderBy: { name: 'asc' }, offset: 4 }))).toEqual(['gamma']);
      });

      it('returns complete aggregates from queries', async () => {
        const lamp = full();
        await dao.save(lamp, -1);
        const [found] = await dao.query({ filter: { name: 'Lamp' } });
        expect(found!.toPlain()).toEqual(lamp.toPlain());
        expect(found!._version).toBe(0);
      });

      it('counts all or matching aggregates', async () => {
        expect(await dao.count()).toBe(5);
        expect(await dao.count({ active: true })).toBe(3);
        expect(await dao.count({ name: { $like: '%a' } })).toBe(4);
      });

      it('names the field or operator of a bad query', async () => {
        await expect(dao.query({ filter: { colour: 'red' } })).rejects.toThrow(InvalidQueryError);
        await expect(dao.query({ filter: { colour: 'red' } })).rejects.toThrow(/colour/);
        await expect(dao.query({ filter: { quantity: { $near: 1 } } })).rejects.toThrow(/\$near/);
        await expect(dao.query({ orderBy: { colour: 'asc' } })).rejects.toThrow(InvalidQueryError);
      });
    });

    describe('transactions', () => {
      it('hides a transaction’s writes from others until it commits', async () => {
        const tx = await provider.begin();
        const inTx = provider.dao(schema, tx);
        const a = item({ name: 'in-tx' });
        await inTx.save(a, -1);
        expect((await inTx.get(a.id))!.name).toBe('in-tx');
        expect(await inTx.count()).toBe(1);
        expect(await dao.get(a.id)).toBeUndefined();
        await tx.commit();
        expect((await dao.get(a.id))!.name).toBe('in-tx');
      });

      it('discards everything a transaction wrote when it rolls back', async () => {
        const kept = item({ name: 'kept' });
        await dao.save(kept, -1);
        const tx = await provider.begin();
        const inTx = provider.dao(schema, tx);
        await inTx.save(item({ name: 'lost' }), -1);
        const loaded = (await inTx.get(kept.id))!;
        loaded.name = 'renamed';
        await inTx.save(loaded, 0);
        expect(await inTx.delete(kept.id)).toBe(true);
        await tx.rollback();
        expect(names(await dao.query({}))).toEqual(['kept']);
        expect((await dao.get(kept.id))!._version).toBe(0);
      });
    });
  });
}
