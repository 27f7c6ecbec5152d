/** The customer checks out a cart. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Address } from '../shared/address.js';
import { LineItem } from './line-item.js';
import { Order } from './order.js';

@domain.command({ partOf: Order })
export class PlaceOrder extends BaseCommand {
  @field.identifier({ required: true }) customerId!: string;
  @field.list({ of: () => LineItem, required: true }) items!: LineItem[];
  @field.valueObject(() => Address, { required: true }) shippingAddress!: Address;
  @field.string({ required: true, maxLength: 40 }) paymentMethod!: string;
  /** The new order's id, chosen by the caller: it knows the id before the command is handled. */
  @field.identifier({ required: true }) orderId!: string;
}
