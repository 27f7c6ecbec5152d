/** The order's payment was captured. Sent by OrderFulfilment. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order } from './order.js';

@domain.command({ partOf: Order })
export class MarkOrderPaid extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) paymentReference!: string;
}
