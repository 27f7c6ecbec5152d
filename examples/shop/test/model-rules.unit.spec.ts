/** The rules the shop's elements enforce on their own, before anything is saved. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSourcedChangeError, ValidationError } from '@protean-ts/core';
import { given } from '@protean-ts/testing';
import { LineItem, Money, Order, OrderConfirmed, OrderPaid, ProductCatalogued, StockItem, StockReceived, UnitsReserved } from '../src/domain.js';
import { anAddress, closeShop, openShop } from './support/shop-fixture.js';

const cups = (quantity: number) => LineItem.create({ sku: 'CUP', quantity, unitPrice: Money.of(6.5) });
const newOrder = (items = [cups(2)]) => Order.place({ orderId: 'order-1', customerId: 'ada', items, shippingAddress: anAddress(), paymentMethod: 'card-visa' });

describe('Money', () => {
  it('adds and multiplies in whole cents', () => {
    expect(Money.of(0.1).plus(Money.of(0.2)).amount).toBe(0.3);
    expect(Money.of(19.99).times(3).format()).toBe('EUR 59.97');
  });

  it('is equal by value', () => {
    expect(Money.of(5).equals(Money.of(5, 'EUR'))).toBe(true);
    expect(Money.of(5).equals(Money.of(5, 'USD'))).toBe(false);
  });

  it('refuses to mix currencies and negative amounts', () => {
    expect(() => Money.of(1).plus(Money.of(1, 'USD'))).toThrow('cannot combine EUR with USD');
    expect(() => Money.of(-1)).toThrow(ValidationError);
    expect(() => Money.of(1, 'euro')).toThrow(ValidationError);
  });
});

describe('Order', () => {
  // Raising events stamps them with the domain's registry, so the domain must be initialised.
  beforeAll(() => openShop());
  afterAll(() => closeShop());

  it('is placed with its total and raises OrderPlaced', () => {
    const order = newOrder([cups(2), LineItem.create({ sku: 'MILL', quantity: 1, unitPrice: Money.of(89) })]);

    expect(order.status).toBe('PLACED');
    expect(order.total.format()).toBe('EUR 102.00');
    expect(order.pendingEvents().map((e) => e.constructor.name)).toEqual(['OrderPlaced']);
  });

  it('needs at least one line', () => {
    expect(() => newOrder([])).toThrow('an order needs at least one line');
  });

  it('keeps its total equal to the sum of its lines', () => {
    const order = newOrder();
    expect(() => (order.total = Money.of(1))).toThrow('EUR 1.00 is not the sum of the lines (EUR 13.00)');
    expect(order.total.format()).toBe('EUR 13.00');
  });

  it('moves only along its lifecycle', async () => {
    await given(newOrder())
      .when((order) => order.markPaid('ch_1'))
      .thenFails(ValidationError, /cannot move from PLACED to PAID/);

    const { aggregate: paid } = await given(newOrder())
      .when((order) => {
        order.confirm();
        order.markPaid('ch_1');
      })
      .then([OrderConfirmed, OrderPaid]);

    await given(paid!)
      .when((order) => order.cancel('too late'))
      .thenFails(ValidationError, /PAID is a final state/);
    expect(paid!.status).toBe('PAID');
    expect(paid!.cancellationReason).toBeUndefined();
  });
});

describe('StockItem', () => {
  beforeAll(() => openShop());
  afterAll(() => closeShop());

  const cupsReceived = () => [
    ProductCatalogued.create({ sku: 'CUP', name: 'Cup', price: Money.of(6.5) }),
    StockReceived.create({ sku: 'CUP', quantity: 3, onHandAfter: 3 }),
  ];

  it('reserves what it has on hand', async () => {
    const { aggregate: item } = await given(StockItem, cupsReceived())
      .when((item) => item.reserve('order-1', 2))
      .then([UnitsReserved.create({ sku: 'CUP', orderId: 'order-1', quantity: 2 })]);
    expect(item!.available()).toBe(1);
    expect(item!.canReserve(1)).toBe(true);
    expect(item!.canReserve(2)).toBe(false);
  });

  it('never reserves more than it has on hand', async () => {
    const history = [...cupsReceived(), UnitsReserved.create({ sku: 'CUP', orderId: 'order-1', quantity: 2 })];
    const { aggregate: item } = await given(StockItem, history)
      .when((item) => item.reserve('order-2', 2))
      .thenFails(ValidationError, /4 reserved but only 3 on hand/);
    // The refused reservation raised nothing and changed nothing.
    expect(item!.available()).toBe(1);
    expect(item!.pendingEvents()).toEqual([]);
    expect(item!._version).toBe(2);
  });

  it('changes only through its events', () => {
    const item = StockItem.catalogue('CUP', 'Cup', Money.of(6.5));
    expect(() => (item.onHand = 10)).toThrow(EventSourcedChangeError);
    expect(item.onHand).toBe(0);
  });
});
