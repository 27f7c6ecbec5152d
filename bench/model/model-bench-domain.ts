/**
 * The model the domain-model benchmark builds: an order with a value object, a status with
 * transitions, three child lines and a post-invariant, the shape a typical command handler makes.
 */
import { BaseAggregate, BaseEntity, BaseEvent, BaseValueObject, Domain, field, invariant, ValidationError } from '@protean-ts/core';

export const modelDomain = new Domain('ModelBench');

@modelDomain.valueObject()
export class Address extends BaseValueObject {
  @field.string({ required: true }) street!: string;
  @field.string({ required: true }) city!: string;
}

@modelDomain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true, maxLength: 50 }) customer!: string;
  @field.status({ values: ['PENDING', 'PLACED'], transitions: { PENDING: ['PLACED'] }, default: 'PENDING' }) status?: 'PENDING' | 'PLACED';
  @field.decimal({ min: 0, scale: 2 }) total?: number;
  @field.datetime({ autoNow: true }) createdAt?: Date;
  @field.valueObject(() => Address) shippingAddress?: Address;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];

  @invariant.post() linesWhenPlaced(): void {
    if (this.status === 'PLACED' && !this.lines?.length) throw new ValidationError({ lines: ['needed to place'] });
  }

  place(): void {
    this.status = 'PLACED';
    this.raise(OrderPlaced.create({ orderId: this.id }));
  }
}

@modelDomain.entity({ partOf: Order })
export class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer({ min: 1 }) quantity!: number;
}

@modelDomain.event({ partOf: Order })
export class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
}
