/**
 * Queries on orders beyond get/find/add. `domain.repositoryFor(Order)` returns an instance of
 * this class (with the generic methods too); `orderRepository()` gives it its full type.
 */
import { BaseRepository, type Repository } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, ORDER_STATUSES, type OrderStatus } from './order.js';

@domain.repository({ partOf: Order })
export class OrderRepository extends BaseRepository<Order> {
  async byCustomer(customerId: string): Promise<Order[]> {
    return this.repository.query({ filter: { customerId }, orderBy: { placedAt: 'asc' } });
  }

  async countByStatus(): Promise<Record<OrderStatus, number>> {
    const counts = await Promise.all(ORDER_STATUSES.map((status) => this.repository.count({ status })));
    return Object.fromEntries(ORDER_STATUSES.map((status, i) => [status, counts[i]!])) as Record<OrderStatus, number>;
  }
}

export function orderRepository(): OrderRepository & Repository<Order> {
  return domain.repositoryFor(Order) as unknown as OrderRepository & Repository<Order>;
}
