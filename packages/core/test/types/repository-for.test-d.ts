import { describe, expectTypeOf, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseRepository, Domain, field, type Repository } from '../../src/index.js';

const domain = new Domain('RepoTypes');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
}

@domain.entity({ partOf: Order })
class Line extends BaseEntity {
  @field.string() sku?: string;
}

@domain.repository({ partOf: Order })
class Orders extends BaseRepository<Order> {
  async byCustomer(customer: string): Promise<Order[]> {
    expectTypeOf(this.repository).toEqualTypeOf<Repository<Order>>();
    return this.repository.query({ filter: { customer } });
  }
}

describe('repositoryFor', () => {
  it('is typed by the aggregate class', () => {
    expectTypeOf(domain.repositoryFor(Order)).toEqualTypeOf<Repository<Order>>();
    expectTypeOf(domain.repositoryFor(Order).get).returns.toEqualTypeOf<Promise<Order>>();
    expectTypeOf(domain.repositoryFor(Order).add).parameter(0).toEqualTypeOf<Order>();
  });

  it('accepts aggregates only', () => {
    // @ts-expect-error an entity has no repository
    domain.repositoryFor(Line);
  });

  it('keeps the repository of a custom repository protected', () => {
    const orders = new (Orders as unknown as new () => Orders)();
    // @ts-expect-error `repository` is for the subclass's methods
    void orders.repository;
    expectTypeOf(orders.byCustomer).returns.toEqualTypeOf<Promise<Order[]>>();
  });
});
