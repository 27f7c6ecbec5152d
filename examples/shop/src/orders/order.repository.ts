/**
 * Queries on orders beyond get/find/add. `domain.repositoryFor(OrderRepository)` returns it,
 * typed, with the generic methods too (and `domain.repositoryFor(Order)` is the same instance).
 */
import { BaseRepository } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, ORDER_STATUSES, type OrderStatus } from './order.js';

@domain.repository({ partOf: Order })
export class OrderRepository extends BaseRepository<Order> {
  async byCustomer(customerId: string): Promise<Order[]> {
    return this.query({ filter: { customerId }, orderBy: { placedAt: 'asc' } });
  }

  async countByStatus(): Promise<Record<OrderStatus, number>> {
    const counts = await Promise.all(ORDER_STATUSES.map((status) => this.count({ status })));
    return Object.fromEntries(ORDER_STATUSES.map((status, i) => [status, counts[i]!])) as Record<OrderStatus, number>;
  }
}
