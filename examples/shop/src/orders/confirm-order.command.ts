/** The order's stock is held: confirm it. Sent by OrderFulfilment. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order } from './order.js';

@domain.command({ partOf: Order })
export class ConfirmOrder extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
}
