/**
 * What the storefront asks about orders, answered without a unit of work:
 * `await domain.dispatch(OrdersOfCustomer.create({ customerId }))`.
 */
import { BaseQuery, BaseQueryHandler, field, read } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, type OrderStatus } from './order.js';
import { OrderRepository } from './order.repository.js';

export interface OrderSummary {
  orderId: string;
  status: OrderStatus;
  /** `EUR 13.00`. */
  total: string;
  placedAt: Date | undefined;
}

@domain.query({ partOf: Order })
export class OrdersOfCustomer extends BaseQuery<OrderSummary[]> {
  @field.identifier({ required: true }) customerId!: string;
}

@domain.queryHandler({ partOf: Order })
export class OrderQueries extends BaseQueryHandler {
  /** Oldest first, as the customer placed them. */
  @read(OrdersOfCustomer)
  async ofCustomer(query: OrdersOfCustomer): Promise<OrderSummary[]> {
    const orders = await domain.repositoryFor(OrderRepository).byCustomer(query.customerId);
    return orders.map((order) => ({ orderId: order.id, status: order.status, total: order.total.format(), placedAt: order.placedAt }));
  }
}
