/** A quantity of one SKU held for an order. */
import { BaseValueObject, field } from '@protean-ts/core';
import { domain } from '../shop.js';

@domain.valueObject()
export class ReservedItem extends BaseValueObject {
  @field.string({ required: true, maxLength: 40 }) sku!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
}
