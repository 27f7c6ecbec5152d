/**
 * The payment of an order did not come in time. Nobody raises it: OrderFulfilment schedules it
 * when it asks for the payment, and the outbox publishes it once due unless the process completed
 * first. It travels on the Order category because the manager follows that category, so its
 * subscription brings the timeout back to it; other Order handlers pass it by.
 */
import { BaseEvent, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order } from '../orders/order.js';

@domain.event({ partOf: Order })
export class PaymentTimedOut extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  /** How long the order waited, in milliseconds (SHOP_PAYMENT_TIMEOUT when it was scheduled). */
  @field.integer({ required: true, min: 0 }) waitedMs!: number;
}
