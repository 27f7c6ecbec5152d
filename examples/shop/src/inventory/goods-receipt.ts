/**
 * The record of one delivery taken into stock, identified by the delivery's id. Receiving stock
 * adds this record in the same unit of work as the new units, so a delivery reported twice is
 * counted once.
 */
import { BaseAggregate, field } from '@protean-ts/core';
import { domain } from '../shop.js';

@domain.aggregate()
export class GoodsReceipt extends BaseAggregate {
  @field.identifier({ identifier: true }) deliveryId!: string;
  @field.string({ required: true, maxLength: 40 }) sku!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
  @field.datetime({ autoNow: true }) receivedAt?: Date;
}
