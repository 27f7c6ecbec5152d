/**
 * The payment of one order, identified by the order's id: an order has one payment. Created
 * from the gateway's answer: CAPTURED, DECLINED, or PENDING when the gateway accepted the charge
 * without answering yet (the order's payment timeout then decides, see OrderFulfilment).
 */
import { BaseAggregate, BaseEvent, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';
import type { GatewayResult } from './payment-gateway.js';

export type PaymentStatus = 'CAPTURED' | 'DECLINED' | 'PENDING';

@domain.aggregate()
export class Payment extends BaseAggregate {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.status({ values: ['CAPTURED', 'DECLINED', 'PENDING'], required: true }) status!: PaymentStatus;
  @field.string({ maxLength: 60 }) gatewayReference?: string;
  @field.string({ maxLength: 200 }) declineReason?: string;

  static fromGateway(orderId: string, amount: Money, result: GatewayResult): Payment {
    // Nothing to tell yet: the gateway's answer is what the order waits for.
    if (result.status === 'awaiting-answer') return Payment.create({ orderId, amount, status: 'PENDING' });
    if (result.status === 'approved') {
      const payment = Payment.create({ orderId, amount, status: 'CAPTURED', gatewayReference: result.reference });
      payment.raise(PaymentCaptured.create({ orderId, amount, reference: result.reference }));
      return payment;
    }
    const payment = Payment.create({ orderId, amount, status: 'DECLINED', declineReason: result.reason });
    payment.raise(PaymentDeclined.create({ orderId, reason: result.reason }));
    return payment;
  }
}

@domain.event({ partOf: Payment })
export class PaymentCaptured extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.string({ required: true }) reference!: string;
}

@domain.event({ partOf: Payment })
export class PaymentDeclined extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) reason!: string;
}
