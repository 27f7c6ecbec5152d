/**
 * The shop's flows end to end on the embedded default: with event_processing = "sync" every
 * reaction has happened by the time the order is placed.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '@protean-ts/core';
import { DECLINED_CARD, domain, Payment } from '../src/domain.js';
import { closeShop, givenStock, loggedErrors, openShop, orderOf, reservationOf, stockOf, timelineOf, whenOrdering } from './support/shop-fixture.js';

describe('placing orders', () => {
  beforeEach(() => openShop());
  afterEach(() => expect(loggedErrors).toEqual([]));
  afterAll(() => closeShop());

  it('reserves stock, captures the payment and marks the order paid', async () => {
    await givenStock('CUP', 10, 6.5);
    await givenStock('MILL', 2, 89);

    const orderId = await whenOrdering({ CUP: 2, MILL: 1 });

    const order = await orderOf(orderId);
    expect(order.status).toBe('PAID');
    expect(order.total.format()).toBe('EUR 102.00');
    expect(await timelineOf(orderId)).toEqual(['placed', 'confirmed', 'paid']);
    expect(await stockOf('CUP')).toEqual({ onHand: 10, reserved: 2 });
    expect(await stockOf('MILL')).toEqual({ onHand: 2, reserved: 1 });
    const payment = await domain.repositoryFor(Payment).get(orderId);
    expect(payment.status).toBe('CAPTURED');
    expect(payment.amount.amount).toBe(102);
  });

  it('cancels an order whose stock runs short, holding nothing of it', async () => {
    await givenStock('CUP', 10);
    await givenStock('KETTLE', 1);

    const orderId = await whenOrdering({ CUP: 3, KETTLE: 2 });

    const order = await orderOf(orderId);
    expect(order.status).toBe('CANCELLED');
    expect(order.cancellationReason).toBe('out of stock (KETTLE: 2 wanted, 1 available)');
    expect(await timelineOf(orderId)).toEqual(['placed', 'cancelled']);
    expect((await reservationOf(orderId))?.status).toBe('REJECTED');
    expect(await stockOf('CUP')).toEqual({ onHand: 10, reserved: 0 });
    expect(await domain.repositoryFor(Payment).find(orderId)).toBeUndefined();
  });

  it('cancels an order whose payment is declined and gives its stock back', async () => {
    await givenStock('MILL', 2);

    const orderId = await whenOrdering({ MILL: 1 }, DECLINED_CARD);

    const order = await orderOf(orderId);
    expect(order.status).toBe('CANCELLED');
    expect(order.cancellationReason).toBe('payment declined: card declined by the issuer');
    expect(await timelineOf(orderId)).toEqual(['placed', 'confirmed', 'cancelled']);
    expect((await reservationOf(orderId))?.status).toBe('RELEASED');
    expect(await stockOf('MILL')).toEqual({ onHand: 2, reserved: 0 });
    expect((await domain.repositoryFor(Payment).get(orderId)).status).toBe('DECLINED');
  });

  it('declines amounts above the card limit', async () => {
    await givenStock('SOFA', 1, 5_000.01);

    const orderId = await whenOrdering({ SOFA: 1 });

    expect((await orderOf(orderId)).cancellationReason).toBe('payment declined: EUR 5000.01 is above the card limit');
  });

  it('adds up lines naming the same SKU when reserving', async () => {
    await givenStock('CUP', 3);
    const first = await whenOrdering({ CUP: 2 });
    // A second order for 2 more cannot be served from the 1 left.
    const second = await whenOrdering({ CUP: 2 });

    expect((await orderOf(first)).status).toBe('PAID');
    expect((await orderOf(second)).status).toBe('CANCELLED');
    expect(await stockOf('CUP')).toEqual({ onHand: 3, reserved: 2 });
  });

  it('refuses a cart with a product the catalogue does not have', async () => {
    await givenStock('CUP', 3);

    await expect(whenOrdering({ CUP: 1, UNICORN: 1 })).rejects.toThrow(ValidationError);
    await expect(whenOrdering({ CUP: 1, UNICORN: 1 })).rejects.toThrow('not in the catalogue: UNICORN');
  });
});
