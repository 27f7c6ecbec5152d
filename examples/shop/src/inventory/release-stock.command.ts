/** Give back the stock held for an order that will not be fulfilled: sent by OrderFulfilment when it cancels one. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Reservation } from './reservation.js';

@domain.command({ partOf: Reservation })
export class ReleaseStock extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
}
