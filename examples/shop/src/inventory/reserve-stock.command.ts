/** Hold an order's items, all or nothing: sent by OrderFulfilment when the order is placed. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Reservation } from './reservation.js';
import { ReservedItem } from './reserved-item.js';

@domain.command({ partOf: Reservation })
export class ReserveStock extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
  /** One entry per SKU (see quantitiesBySku). */
  @field.list({ of: () => ReservedItem, required: true }) items!: ReservedItem[];
}
