/**
 * What the warehouse holds of one product, identified by its SKU: units on hand, and how many
 * of them are reserved for open orders. Reservations never exceed what is on hand.
 */
import { BaseAggregate, BaseEvent, field, invariant, ValidationError } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';

@domain.aggregate()
export class StockItem extends BaseAggregate {
  @field.string({ identifier: true, maxLength: 40 }) sku!: string;
  @field.string({ required: true, maxLength: 120 }) name!: string;
  @field.valueObject(() => Money, { required: true }) price!: Money;
  @field.integer({ required: true, min: 0 }) onHand!: number;
  @field.integer({ required: true, min: 0 }) reserved!: number;

  available(): number {
    return this.onHand - this.reserved;
  }

  canReserve(quantity: number): boolean {
    return quantity <= this.available();
  }

  receive(quantity: number): void {
    this.onHand += quantity;
    this.raise(StockReceived.create({ sku: this.sku, quantity, onHand: this.onHand }));
  }

  /** Callers check canReserve first: running out of stock is an outcome, not an error. */
  reserve(quantity: number): void {
    this.reserved += quantity;
  }

  release(quantity: number): void {
    this.reserved -= quantity;
  }

  @invariant.post() reservedWithinOnHand(): void {
    if (this.reserved > this.onHand) throw new ValidationError({ reserved: [`${this.reserved} reserved but only ${this.onHand} on hand`] });
  }
}

@domain.event({ partOf: StockItem })
export class StockReceived extends BaseEvent {
  @field.string({ required: true }) sku!: string;
  @field.integer({ required: true }) quantity!: number;
  @field.integer({ required: true }) onHand!: number;
}
