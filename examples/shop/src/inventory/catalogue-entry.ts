/**
 * A read model: one line of the catalogue per product, kept by CatalogueProjector from the
 * StockItem stream. Stock items are event-sourced, so they are loaded by SKU and never queried;
 * listing the products (the demo's summary, a storefront) reads this instead.
 */
import { BaseAggregate, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';

@domain.aggregate()
export class CatalogueEntry extends BaseAggregate {
  @field.string({ identifier: true, maxLength: 40 }) sku!: string;
  @field.string({ required: true, maxLength: 120 }) name!: string;
  @field.valueObject(() => Money, { required: true }) price!: Money;
  /** Every unit delivered so far. */
  @field.integer({ required: true, min: 0 }) unitsReceived!: number;
  /** The units on hand right after the latest delivery (reservations change it since). */
  @field.integer({ min: 0 }) onHandAfterLastDelivery?: number;
}
