/** Units of a product arrived at the warehouse; a SKU seen for the first time needs its name and price. */
import { BaseCommand, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';
import { StockItem } from './stock-item.js';

@domain.command({ partOf: StockItem })
export class ReceiveStock extends BaseCommand {
  /** The warehouse's delivery id; the same delivery reported again is ignored. */
  @field.identifier({ required: true }) deliveryId!: string;
  @field.string({ required: true, maxLength: 40 }) sku!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
  @field.string({ maxLength: 120 }) name?: string;
  @field.valueObject(() => Money) price?: Money;
}
