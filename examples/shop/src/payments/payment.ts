/**
 * The payment of one order, identified by the order's id: an order has one payment. Created
 * CAPTURED or DECLINED, from the gateway's answer.
 */
import { BaseAggregate, BaseEvent, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';
import type { GatewayResult } from './payment-gateway.js';

export type PaymentStatus = 'CAPTURED' | 'DECLINED';

@domain.aggregate()
export class Payment extends BaseAggregate {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.status({ values: ['CAPTURED', 'DECLINED'], required: true }) status!: PaymentStatus;
  @field.string({ maxLength: 60 }) gatewayReference?: string;
  @field.string({ maxLength: 200 }) declineReason?: string;

  static fromGateway(orderId: string, amount: Money, result: GatewayResult): Payment {
    if (result.approved) {
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
