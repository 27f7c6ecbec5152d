/**
 * An amount in one currency. Immutable: arithmetic returns new Money, and amounts are kept to
 * cents so sums never drift the way binary floating point does.
 */
import { BaseValueObject, field, ValidationError } from '@protean-ts/core';
import { domain } from '../shop.js';

@domain.valueObject()
export class Money extends BaseValueObject {
  @field.decimal({ required: true, min: 0, precision: 12, scale: 2 }) amount!: number;
  @field.string({ required: true, pattern: /^[A-Z]{3}$/, description: 'ISO 4217 code, e.g. EUR' }) currency!: string;

  static of(amount: number, currency = 'EUR'): Money {
    return Money.create({ amount: toCents(amount) / 100, currency });
  }

  static zero(currency = 'EUR'): Money {
    return Money.of(0, currency);
  }

  plus(other: Money): Money {
    this.assertSameCurrency(other);
    return Money.of((toCents(this.amount) + toCents(other.amount)) / 100, this.currency);
  }

  times(factor: number): Money {
    return Money.of((toCents(this.amount) * factor) / 100, this.currency);
  }

  isGreaterThan(other: Money): boolean {
    this.assertSameCurrency(other);
    return toCents(this.amount) > toCents(other.amount);
  }

  format(): string {
    return `${this.currency} ${this.amount.toFixed(2)}`;
  }

  private assertSameCurrency(other: Money): void {
    if (other.currency !== this.currency) throw new ValidationError({ currency: [`cannot combine ${this.currency} with ${other.currency}`] }, 'Money');
  }
}

function toCents(amount: number): number {
  return Math.round(amount * 100);
}
