/** Charges a confirmed order. Driven by the Order stream; the Payment is the order's, named by its id. */
import { BaseEventHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderConfirmed } from '../orders/order.js';
import { Payment } from './payment.js';
import { chargeCard } from './payment-gateway.js';

@domain.eventHandler({ streamCategory: Order })
export class PaymentProcessor extends BaseEventHandler {
  @handle(OrderConfirmed)
  async chargeOrder(event: OrderConfirmed): Promise<void> {
    const result = chargeCard(event.orderId, event.paymentMethod, event.amount);
    await domain.repositoryFor(Payment).add(Payment.fromGateway(event.orderId, event.amount, result));
  }
}
