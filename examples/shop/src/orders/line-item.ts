/** One line of a cart or an order as data: what, how many, at which price. */
import { BaseValueObject, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';

@domain.valueObject()
export class LineItem extends BaseValueObject {
  @field.string({ required: true, maxLength: 40 }) sku!: string;
  @field.integer({ required: true, min: 1, max: 1000 }) quantity!: number;
  @field.valueObject(() => Money, { required: true }) unitPrice!: Money;

  subtotal(): Money {
    return this.unitPrice.times(this.quantity);
  }
}
