/**
 * OrderFulfilment on the embedded default, run by the in-process server: the commands it sends
 * at each step, the state it keeps (its transition stream), and the payment timeout: scheduled
 * when the payment is asked for, dropped when the process completes, fired once for a payment
 * that never comes, and never before its due time.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidDurationError, processManagerStream, type ProcessManagerTransition } from '@protean-ts/core';
import { Checkout, DECLINED_CARD, domain, OrderFulfilment, Payment, PAYMENT_TIMED_OUT, PaymentTimedOut, paymentTimeoutMs, SILENT_CARD } from '../src/domain.js';
import {
  allHandled,
  anAddress,
  closeShop,
  committedMessages,
  givenStock,
  loggedErrors,
  openShop,
  orderOf,
  reservationOf,
  stockOf,
  timelineOf,
  whenOrdering,
} from './support/shop-fixture.js';

async function transitions(orderId: string): Promise<ProcessManagerTransition[]> {
  const record = domain.registry.requireRecord(OrderFulfilment, 'processManager');
  const entries = await domain.providers.get('default')!.eventStore.readStream(processManagerStream(record, orderId));
  return entries.map((entry) => entry.data as unknown as ProcessManagerTransition);
}

/** What the manager handled, and the stage and completion each left. */
async function steps(orderId: string): Promise<string[]> {
  return (await transitions(orderId)).map(
    (t) => `${t.event.type.replace(/^Shop\.|\.v\d+$/g, '')} → ${String(t.state.stage)}${t.completed ? ' (complete)' : ''}`,
  );
}

/** The types of the messages committed for an order (events and the commands the manager sent), in commit order. */
async function messagesOf(orderId: string): Promise<string[]> {
  return (await committedMessages()).filter((m) => m.data.orderId === orderId).map((m) => m.metadata.headers.type.replace(/^Shop\.|\.v\d+$/g, ''));
}

const scheduledTimeouts = async () => {
  const rows = await domain.providers.get('default')!.outbox.list({ status: 'scheduled', limit: 1000 });
  return rows.filter((row) => row.messageType === domain.messageTypeOf(PaymentTimedOut));
};

describe('order fulfilment', () => {
  const previousTimeout = process.env.SHOP_PAYMENT_TIMEOUT;
  afterEach(() => {
    expect(loggedErrors).toEqual([]);
    if (previousTimeout === undefined) delete process.env.SHOP_PAYMENT_TIMEOUT;
    else process.env.SHOP_PAYMENT_TIMEOUT = previousTimeout;
  });
  afterAll(() => closeShop());

  describe('driving the order with commands', () => {
    beforeEach(() => openShop());

    it('reserves, confirms, charges and marks paid, then completes and drops the payment timeout', async () => {
      await givenStock('CUP', 10);

      const orderId = await whenOrdering({ CUP: 2 });

      expect(await messagesOf(orderId)).toEqual([
        'OrderPlaced',
        'ReserveStock',
        'UnitsReserved',
        'StockReserved',
        'ConfirmOrder',
        'OrderConfirmed',
        'ChargePayment',
        'PaymentCaptured',
        'MarkOrderPaid',
        'OrderPaid',
      ]);
      expect(await steps(orderId)).toEqual([
        'OrderPlaced → reserving',
        'StockReserved → confirming',
        'OrderConfirmed → awaiting-payment',
        'PaymentCaptured → paid (complete)',
      ]);
      expect(await scheduledTimeouts()).toEqual([]);
    });

    it("cancels with the reservation's reason when stock is short, asking for no payment", async () => {
      await givenStock('CUP', 1);

      const orderId = await whenOrdering({ CUP: 2 });

      expect((await orderOf(orderId)).cancellationReason).toBe('out of stock (CUP: 2 wanted, 1 available)');
      expect(await messagesOf(orderId)).toEqual(['OrderPlaced', 'ReserveStock', 'ReservationFailed', 'CancelOrder', 'OrderCancelled']);
      expect(await steps(orderId)).toEqual(['OrderPlaced → reserving', 'ReservationFailed → cancelled (complete)']);
    });

    it('cancels a declined order and releases its stock, dropping the payment timeout', async () => {
      await givenStock('CUP', 10);

      const orderId = await whenOrdering({ CUP: 2 }, DECLINED_CARD);

      expect(await messagesOf(orderId)).toEqual([
        'OrderPlaced',
        'ReserveStock',
        'UnitsReserved',
        'StockReserved',
        'ConfirmOrder',
        'OrderConfirmed',
        'ChargePayment',
        'PaymentDeclined',
        'CancelOrder',
        'ReleaseStock',
        'OrderCancelled',
        'UnitsReleased',
        'StockReleased',
      ]);
      expect((await steps(orderId)).at(-1)).toBe('PaymentDeclined → cancelled (complete)');
      expect(await scheduledTimeouts()).toEqual([]);
    });
  });

  describe('the payment timeout', () => {
    it('cancels an order whose payment never comes, once, and gives its stock back', async () => {
      process.env.SHOP_PAYMENT_TIMEOUT = '200ms';
      await openShop();
      await givenStock('CUP', 10);

      const orderId = await whenOrdering({ CUP: 3 }, SILENT_CARD);

      const order = await orderOf(orderId);
      expect([order.status, order.cancellationReason]).toEqual(['CANCELLED', PAYMENT_TIMED_OUT]);
      expect(await timelineOf(orderId)).toEqual(['placed', 'confirmed', 'cancelled']);
      expect((await reservationOf(orderId))?.status).toBe('RELEASED');
      expect(await stockOf('CUP')).toEqual({ onHand: 10, reserved: 0 });
      // The gateway took the charge and never answered.
      expect((await domain.repositoryFor(Payment).get(orderId)).status).toBe('PENDING');
      const timedOut = (await committedMessages()).filter((m) => m.metadata.headers.type === domain.messageTypeOf(PaymentTimedOut));
      expect(timedOut.map((m) => m.data)).toEqual([{ orderId, waitedMs: 200 }]);
      expect(await steps(orderId)).toEqual([
        'OrderPlaced → reserving',
        'StockReserved → confirming',
        'OrderConfirmed → awaiting-payment',
        'PaymentTimedOut → cancelled (complete)',
      ]);
    });

    it('waits until it is due: a silent payment leaves the order confirmed, its timeout scheduled for then', async () => {
      process.env.SHOP_PAYMENT_TIMEOUT = '1h';
      await openShop();
      await givenStock('CUP', 10);

      // Placed without waiting for it to settle, which would take the hour.
      const orderId = await new Checkout().placeOrder({
        customerId: 'ada',
        items: [{ sku: 'CUP', quantity: 1 }],
        shippingAddress: anAddress(),
        paymentMethod: SILENT_CARD,
      });
      await allHandled();

      expect((await orderOf(orderId)).status).toBe('CONFIRMED');
      const [timeout, ...others] = await scheduledTimeouts();
      expect(others).toEqual([]);
      const confirmedAt = (await committedMessages()).find((m) => m.metadata.headers.type === 'Shop.OrderConfirmed.v1' && m.data.orderId === orderId)!.metadata
        .headers.time;
      expect(timeout!.deliverAt!.getTime()).toBeGreaterThanOrEqual(new Date(confirmedAt).getTime() + 3_600_000);
      expect(timeout!.partitionKey).toMatch(new RegExp(`^shop::order_fulfilment-${orderId}/timeout/`));
      expect((await steps(orderId)).at(-1)).toBe('OrderConfirmed → awaiting-payment');
    });

    it('is configured by SHOP_PAYMENT_TIMEOUT: 5 s by default, refused by name when not a duration', () => {
      expect(paymentTimeoutMs({})).toBe(5_000);
      expect(paymentTimeoutMs({ SHOP_PAYMENT_TIMEOUT: '1.5m' })).toBe(90_000);
      expect(paymentTimeoutMs({ SHOP_PAYMENT_TIMEOUT: '750' })).toBe(750);
      expect(() => paymentTimeoutMs({ SHOP_PAYMENT_TIMEOUT: '15 minutes' })).toThrow(InvalidDurationError);
      expect(() => paymentTimeoutMs({ SHOP_PAYMENT_TIMEOUT: '15 minutes' })).toThrow(/SHOP_PAYMENT_TIMEOUT/);
    });
  });
});
