/** The order will not be fulfilled (out of stock, payment declined, payment timed out). Sent by OrderFulfilment. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order } from './order.js';

@domain.command({ partOf: Order })
export class CancelOrder extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true, maxLength: 200 }) reason!: string;
}
