/** A postal address: a value object embedded in the order (its fields become columns of the order's table). */
import { BaseValueObject, field } from '@protean-ts/core';
import { domain } from '../shop.js';

@domain.valueObject()
export class Address extends BaseValueObject {
  @field.string({ required: true, maxLength: 120 }) street!: string;
  @field.string({ required: true, maxLength: 60 }) city!: string;
  @field.string({ required: true, maxLength: 12 }) postalCode!: string;
  @field.string({ required: true, pattern: /^[A-Z]{2}$/, description: 'ISO 3166 country code' }) country!: string;

  format(): string {
    return `${this.street}, ${this.postalCode} ${this.city}, ${this.country}`;
  }
}
