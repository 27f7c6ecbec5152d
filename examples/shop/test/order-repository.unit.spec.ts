/** The custom repository's queries, reached by its class: `domain.repositoryFor(OrderRepository)`. */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DECLINED_CARD, domain, OrderRepository } from '../src/domain.js';
import { closeShop, givenStock, openShop, whenOrdering } from './support/shop-fixture.js';

describe('OrderRepository', () => {
  beforeEach(() => openShop());
  afterAll(() => closeShop());

  it("lists a customer's orders, oldest first", async () => {
    await givenStock('CUP', 10);
    const first = await whenOrdering({ CUP: 1 }, 'card-visa', 'ada');
    await whenOrdering({ CUP: 1 }, 'card-visa', 'brian');
    const second = await whenOrdering({ CUP: 2 }, 'card-visa', 'ada');

    const orders = await domain.repositoryFor(OrderRepository).byCustomer('ada');

    expect(orders.map((order) => order.id)).toEqual([first, second]);
  });

  it('counts orders by status, every status included', async () => {
    await givenStock('CUP', 3);
    await whenOrdering({ CUP: 1 });
    await whenOrdering({ CUP: 1 }, DECLINED_CARD);
    await whenOrdering({ CUP: 5 });

    expect(await domain.repositoryFor(OrderRepository).countByStatus()).toEqual({ PLACED: 0, CONFIRMED: 0, PAID: 1, CANCELLED: 2 });
  });
});
