/**
 * Moves confirmed orders on when the payment is settled: paid when captured, cancelled when
 * declined (inventory then gives their stock back).
 */
import { BaseEventHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Payment, PaymentCaptured, PaymentDeclined } from '../payments/payment.js';
import { Order } from './order.js';

@domain.eventHandler({ streamCategory: Payment })
export class PaymentOutcomes extends BaseEventHandler {
  @handle(PaymentCaptured)
  async markPaid(event: PaymentCaptured): Promise<void> {
    const orders = domain.repositoryFor(Order);
    const order = await orders.get(event.orderId);
    order.markPaid(event.reference);
    await orders.add(order);
  }

  @handle(PaymentDeclined)
  async cancelOrder(event: PaymentDeclined): Promise<void> {
    const orders = domain.repositoryFor(Order);
    const order = await orders.get(event.orderId);
    order.cancel(`payment declined: ${event.reason}`);
    await orders.add(order);
  }
}
