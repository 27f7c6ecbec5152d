/**
 * The Order aggregate with its lines and the events it raises. They share one module because
 * each is declared `partOf: Order`: the decorators need the Order class when they run, which
 * separate modules importing each other cannot guarantee.
 *
 * Lifecycle: PLACED → CONFIRMED (stock reserved) → PAID (payment captured); PLACED → CANCELLED
 * (out of stock) or CONFIRMED → CANCELLED (payment declined or timed out). OrderFulfilment drives
 * it with commands. Every change raises an event, so the order's stream tells its whole story.
 */
import { BaseAggregate, BaseEntity, BaseEvent, field, invariant, ValidationError } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Address } from '../shared/address.js';
import { Money } from '../shared/money.js';
import { LineItem } from './line-item.js';

export const ORDER_STATUSES = ['PLACED', 'CONFIRMED', 'PAID', 'CANCELLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface NewOrder {
  orderId: string;
  customerId: string;
  items: readonly LineItem[];
  shippingAddress: Address;
  paymentMethod: string;
}

@domain.aggregate()
export class Order extends BaseAggregate {
  @field.identifier({ required: true }) customerId!: string;
  @field.hasMany(() => OrderLine) lines!: OrderLine[];
  @field.valueObject(() => Money, { required: true }) total!: Money;
  @field.valueObject(() => Address, { required: true }) shippingAddress!: Address;
  @field.string({ required: true, maxLength: 40, description: 'token of the payment method, passed on to the gateway' }) paymentMethod!: string;
  @field.status({
    values: ORDER_STATUSES,
    required: true,
    transitions: { PLACED: ['CONFIRMED', 'CANCELLED'], CONFIRMED: ['PAID', 'CANCELLED'] },
  })
  status!: OrderStatus;
  @field.string({ maxLength: 200 }) cancellationReason?: string;
  @field.datetime({ autoNow: true }) placedAt?: Date;

  /** A new order for the items, priced by their lines. */
  static place(order: NewOrder): Order {
    const lines = order.items.map((item) => OrderLine.create({ sku: item.sku, quantity: item.quantity, unitPrice: item.unitPrice }));
    const currency = order.items[0]?.unitPrice.currency ?? 'EUR';
    const total = order.items.reduce((sum, item) => sum.plus(item.subtotal()), Money.zero(currency));
    const placed = Order.create({
      id: order.orderId,
      customerId: order.customerId,
      lines,
      total,
      shippingAddress: order.shippingAddress,
      paymentMethod: order.paymentMethod,
      status: 'PLACED',
    });
    placed.raise(OrderPlaced.create({ orderId: placed.id, customerId: placed.customerId, items: [...order.items], total }));
    return placed;
  }

  confirm(): void {
    this.status = 'CONFIRMED';
    this.raise(OrderConfirmed.create({ orderId: this.id, customerId: this.customerId, amount: this.total, paymentMethod: this.paymentMethod }));
  }

  markPaid(paymentReference: string): void {
    this.status = 'PAID';
    this.raise(OrderPaid.create({ orderId: this.id, amount: this.total, paymentReference }));
  }

  cancel(reason: string): void {
    // Both fields change together: the status transition and the reason are one change.
    this.atomicChange(() => {
      this.status = 'CANCELLED';
      this.cancellationReason = reason;
    });
    this.raise(OrderCancelled.create({ orderId: this.id, reason }));
  }

  @invariant.post() hasLines(): void {
    if (!this.lines?.length) throw new ValidationError({ lines: ['an order needs at least one line'] });
  }

  @invariant.post() totalMatchesLines(): void {
    const sum = (this.lines ?? []).reduce((acc, line) => acc.plus(line.unitPrice.times(line.quantity)), Money.zero(this.total.currency));
    if (!sum.equals(this.total)) throw new ValidationError({ total: [`${this.total.format()} is not the sum of the lines (${sum.format()})`] });
  }
}

@domain.entity({ partOf: Order })
export class OrderLine extends BaseEntity {
  @field.string({ required: true, maxLength: 40 }) sku!: string;
  @field.integer({ required: true, min: 1, max: 1000 }) quantity!: number;
  @field.valueObject(() => Money, { required: true }) unitPrice!: Money;
}

@domain.event({ partOf: Order })
export class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.identifier({ required: true }) customerId!: string;
  @field.list({ of: () => LineItem, required: true }) items!: LineItem[];
  @field.valueObject(() => Money, { required: true }) total!: Money;
}

// Published: other systems (shipping, accounting) learn of confirmed and cancelled orders through
// the external brokers of `outbox.external_brokers`; `protean-ts schema export` describes them.
@domain.event({ partOf: Order, published: true })
export class OrderConfirmed extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.identifier({ required: true }) customerId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.string({ required: true }) paymentMethod!: string;
}

@domain.event({ partOf: Order })
export class OrderPaid extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.valueObject(() => Money, { required: true }) amount!: Money;
  @field.string({ required: true }) paymentReference!: string;
}

@domain.event({ partOf: Order, published: true })
export class OrderCancelled extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) reason!: string;
}
