/**
 * A domain exercising every field kind the PostgreSQL provider maps: scalars of each kind,
 * nested value objects, jsonb lists and dicts, hasMany with a nested hasMany, and hasOne.
 */
import { BaseAggregate, BaseEntity, BaseValueObject, Domain, field } from '@protean-ts/core';

export const shop = new Domain('Shop');

@shop.valueObject()
export class GeoPoint extends BaseValueObject {
  @field.float({ required: true }) lat!: number;
  @field.float({ required: true }) lng!: number;
}

@shop.valueObject()
export class Address extends BaseValueObject {
  @field.string({ required: true }) street!: string;
  @field.string() city?: string;
  @field.valueObject(() => GeoPoint) location?: GeoPoint;
}

@shop.valueObject()
export class Tag extends BaseValueObject {
  @field.string({ required: true }) label!: string;
}

@shop.aggregate()
export class Customer extends BaseAggregate {
  @field.string({ required: true }) name!: string;
}

@shop.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true, maxLength: 50 }) customer!: string;
  @field.string({ unique: true }) code?: string;
  @field.text() notes?: string;
  @field.integer({ min: 0 }) quantity?: number;
  @field.float() weight?: number;
  @field.decimal({ min: 0, precision: 12, scale: 2 }) total?: number;
  @field.boolean() gift?: boolean;
  @field.date() dueOn?: Date;
  @field.datetime() placedAt?: Date;
  @field.identifier() externalId?: string;
  @field.reference(() => Customer) customerId?: string;
  @field.status({ values: ['PENDING', 'PLACED', 'SHIPPED'], default: 'PENDING' }) status?: string;
  @field.list({ of: 'string' }) tags?: string[];
  @field.list({ of: () => Tag }) labels?: Tag[];
  @field.dict() extra?: Record<string, unknown>;
  @field.valueObject(() => Address) shippingAddress?: Address;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];
  @field.hasOne(() => Shipment) shipment?: Shipment;
}

@shop.entity({ partOf: Order })
export class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer({ min: 1 }) quantity!: number;
  @field.hasMany(() => LineNote) lineNotes?: LineNote[];
}

@shop.entity({ partOf: OrderLine })
export class LineNote extends BaseEntity {
  @field.text({ required: true }) text!: string;
}

@shop.entity({ partOf: Order })
export class Shipment extends BaseEntity {
  @field.string({ required: true }) carrier!: string;
  @field.datetime() shippedAt?: Date;
}
