/**
 * The storefront's questions as queries on the embedded default: a customer's orders and an
 * order's timeline, answered by domain.dispatch without a unit of work.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { domain, OrdersOfCustomer, TimelineOfOrder } from '../src/domain.js';
import { closeShop, givenStock, loggedErrors, openShop, whenOrdering } from './support/shop-fixture.js';

describe('shop queries', () => {
  beforeEach(() => openShop());
  afterEach(() => expect(loggedErrors).toEqual([]));
  afterAll(() => closeShop());

  it("lists a customer's orders, oldest first, and nobody else's", async () => {
    await givenStock('CUP', 10, 6.5);
    const first = await whenOrdering({ CUP: 2 }, 'card-visa', 'ada');
    await whenOrdering({ CUP: 1 }, 'card-visa', 'grace');
    const second = await whenOrdering({ CUP: 1 }, 'card-visa', 'ada');

    const orders = await domain.dispatch(OrdersOfCustomer.create({ customerId: 'ada' }));
    expect(orders.map((o) => o.orderId)).toEqual([first, second]);
    expect(orders[0]).toMatchObject({ status: 'PAID', total: 'EUR 13.00' });
    expect(await domain.dispatch(OrdersOfCustomer.create({ customerId: 'nobody' }))).toEqual([]);
  });

  it("tells an order's steps, and null for an order it does not know", async () => {
    await givenStock('CUP', 5, 6.5);
    const orderId = await whenOrdering({ CUP: 2 });
    const timeline = await domain.dispatch(TimelineOfOrder.create({ orderId }));
    expect(timeline?.steps.map((s) => s.step)).toEqual(['placed', 'confirmed', 'paid']);
    expect(await domain.dispatch(TimelineOfOrder.create({ orderId: 'b4f0c3a2-0000-4000-8000-000000000000' }))).toBeNull();
  });

  it('refuses a query that is not valid, naming the field', () => {
    expect(() => OrdersOfCustomer.create({} as never)).toThrow(/customerId/);
  });
});
