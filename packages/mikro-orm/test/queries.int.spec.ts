/**
 * Repository queries on PostgreSQL beyond the conformance suite: every kind of operand (dates,
 * calendar dates, decimals, jsonb), LIKE escaping, stable paging over ties, and clear errors for
 * filters the provider cannot express.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/core/testing';
import { InvalidQueryError, type AggregateDao } from '@protean-ts/core';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { Order, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL queries', () => {
  const fixture = new ProviderFixture();
  const schema = shop.aggregateSchemaFor(Order);
  let dao: AggregateDao<Order>;
  beforeAll(() => fixture.start());
  afterAll(() => fixture.stop());
  beforeEach(async () => {
    dao = (await fixture.fresh([schema])).dao(schema);
    const orders = [
      Order.create({ customer: 'ann', total: 10, dueOn: new Date('2024-01-10'), placedAt: new Date('2024-01-01T12:00:00Z'), code: '50%_off', extra: { vip: true }, status: 'PLACED' }),
      Order.create({ customer: 'bob', total: 10.01, dueOn: new Date('2024-01-11'), placedAt: new Date('2024-01-01T12:00:00.001Z'), code: '50pct', status: 'PLACED' }),
      Order.create({ customer: 'cy', total: 99.99, dueOn: new Date('2024-03-01'), code: 'x_y' }),
      Order.create({ customer: 'Dee', total: 0 }),
    ];
    for (const order of orders) await dao.save(order, -1);
  });

  const customers = async (filter: Record<string, unknown>) => (await dao.query({ filter, orderBy: { customer: 'asc' } })).map((o) => o.customer);

  it('compares decimals exactly', async () => {
    expect(await customers({ total: { $gt: 10 } })).toEqual(['bob', 'cy']);
    expect(await customers({ total: 10.01 })).toEqual(['bob']);
    expect(await customers({ total: { $in: [0, 99.99] } })).toEqual(['Dee', 'cy']);
  });

  it('compares datetimes to the millisecond and calendar dates by day', async () => {
    expect(await customers({ placedAt: { $gt: new Date('2024-01-01T12:00:00Z') } })).toEqual(['bob']);
    expect(await customers({ placedAt: '2024-01-01T12:00:00.000Z' })).toEqual(['ann']);
    expect(await customers({ dueOn: { $lte: new Date('2024-01-11') } })).toEqual(['ann', 'bob']);
    expect(await customers({ dueOn: '2024-03-01' })).toEqual(['cy']);
  });

  it('treats % and _ in LIKE as wildcards unless escaped with a backslash', async () => {
    expect(await customers({ code: { $like: '50%' } })).toEqual(['ann', 'bob']);
    expect(await customers({ code: { $like: '50\\%%' } })).toEqual(['ann']);
    expect(await customers({ code: { $like: 'x\\_y' } })).toEqual(['cy']);
  });

  it('matches whole jsonb values with $eq', async () => {
    expect(await customers({ extra: { vip: true } })).toEqual(['ann']);
    expect(await customers({ extra: null })).toEqual(['Dee', 'bob', 'cy']);
  });

  it('orders text by code point and pages through ties without overlap', async () => {
    expect((await dao.query({ orderBy: { customer: 'asc' } })).map((o) => o.customer)).toEqual(['Dee', 'ann', 'bob', 'cy']);
    const pages: string[] = [];
    for (let offset = 0; offset < 4; offset += 1) {
      const [order] = await dao.query({ orderBy: { status: 'asc' }, limit: 1, offset });
      pages.push(order!.id);
    }
    expect(new Set(pages).size).toBe(4);
  });

  it('refuses filters and orderings it cannot express, naming the field', async () => {
    const bad = (spec: object) => dao.query(spec).catch((e: unknown) => e);
    expect(await bad({ filter: { shippingAddress: { street: 'x' } } })).toBeInstanceOf(InvalidQueryError);
    expect(await bad({ filter: { lines: [] } })).toMatchObject({ message: expect.stringMatching(/"lines", a hasMany field/) });
    expect(await bad({ filter: { tags: { $gt: 1 } } })).toMatchObject({ message: expect.stringMatching(/\$gt on "tags"/) });
    expect(await bad({ filter: { total: { $like: '1%' } } })).toMatchObject({ message: expect.stringMatching(/\$like on "total"/) });
    expect(await bad({ filter: { total: { $in: 5 } } })).toMatchObject({ message: expect.stringMatching(/needs an array/) });
    expect(await bad({ filter: { total: { $gt: null } } })).toMatchObject({ message: expect.stringMatching(/needs a value/) });
    expect(await bad({ orderBy: { extra: 'asc' } })).toMatchObject({ message: expect.stringMatching(/orderBy names "extra"/) });
    expect(await bad({ orderBy: { customer: 'up' } })).toMatchObject({ message: expect.stringMatching(/'asc' or 'desc'/) });
    expect(await bad({ limit: -1 })).toMatchObject({ message: expect.stringMatching(/limit must be a non-negative integer/) });
    expect(await bad({ offset: 1.5 })).toBeInstanceOf(InvalidQueryError);
  });

  it('counts with the same filters', async () => {
    expect(await dao.count({ status: 'PLACED', total: { $lt: 10.01 } })).toBe(1);
    expect(await dao.count({ code: { $ne: null } })).toBe(3);
  });
});
