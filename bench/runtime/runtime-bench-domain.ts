/** The model the runtime benchmark drives: an order with one line that raises one event per save. */
import { BaseAggregate, BaseEntity, BaseEvent, Domain, field } from '@protean-ts/core';

export const runtimeDomain = new Domain('Bench');

@runtimeDomain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.decimal() total?: number;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];

  place(): void {
    this.raise(OrderPlaced.create({ orderId: this.id, customer: this.customer, total: this.total }));
  }
}

@runtimeDomain.entity({ partOf: Order })
export class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer() quantity?: number;
}

@runtimeDomain.event({ partOf: Order })
export class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string() customer?: string;
  @field.decimal() total?: number;
}
