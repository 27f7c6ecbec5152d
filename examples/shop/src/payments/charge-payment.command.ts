/** Charge an order's total to its payment method: sent by OrderFulfilment once the order is confirmed. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';
import { Payment } from './payment.js';

@domain.command({ partOf: Payment })
export class ChargePayment extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.string({ required: true, maxLength: 40 }) paymentMethod!: string;
}
