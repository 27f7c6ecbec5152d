/**
 * The order flow told by its events, with @protean-ts/testing: the shop opened without its
 * embedded server, `drain` runs every handler in this process until nothing is left, and
 * `captureEvents` shows what the flow committed, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureEvents, drain, given, stopHandlers } from '@protean-ts/testing';
import {
  Checkout,
  domain,
  Money,
  OrderConfirmed,
  OrderPaid,
  OrderPlaced,
  PaymentCaptured,
  ProductCatalogued,
  ReceiveStock,
  StockItem,
  StockReceived,
  StockReserved,
  UnitsReserved,
} from '../src/domain.js';
import { anAddress, openShop } from './support/shop-fixture.js';

describe('the order flow, by its events', () => {
  beforeAll(() => openShop(undefined, { server: false }));
  afterAll(() => stopHandlers(domain));

  it('takes a delivery of a known product: the handler applies it to the stored history and returns the stock', async () => {
    const history = [
      ProductCatalogued.create({ sku: 'KETTLE', name: 'Kettle', price: Money.of(25) }),
      StockReceived.create({ sku: 'KETTLE', quantity: 3, onHandAfter: 3 }),
    ];
    const outcome = await given(StockItem, history)
      .in(domain)
      .when(ReceiveStock.create({ deliveryId: 'delivery-7', sku: 'KETTLE', quantity: 2 }))
      .then([StockReceived.create({ sku: 'KETTLE', quantity: 2, onHandAfter: 5 })]);
    expect(outcome.result).toBe(5);
  });

  it('goes from placed to paid, each step an event of its own, committed in causal order', async () => {
    await domain.process(ReceiveStock.create({ deliveryId: 'delivery-8', sku: 'CUP', quantity: 5, name: 'Cup', price: Money.of(6.5) }));
    const captured = captureEvents(domain);

    const orderId = await new Checkout().placeOrder({
      customerId: 'ada',
      items: [{ sku: 'CUP', quantity: 2 }],
      shippingAddress: anAddress(),
      paymentMethod: 'card-visa',
    });
    await drain(domain);

    // By class: an instance would compare its data too.
    captured.assert([OrderPlaced, UnitsReserved, StockReserved, OrderConfirmed, PaymentCaptured, OrderPaid]);
    expect(captured.ofType(OrderPaid).map((event) => event.orderId)).toEqual([orderId]);
  });
});
