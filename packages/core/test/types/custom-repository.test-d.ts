import { describe, expectTypeOf, it } from 'vitest';
import { BaseAggregate, BaseRepository, Domain, field, type QuerySpec, type Repository } from '../../src/index.js';

const domain = new Domain('CustomRepositoryTypes');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.float() total?: number;
}

@domain.aggregate()
class Invoice extends BaseAggregate {
  @field.string({ required: true }) number!: string;
}

@domain.repository({ partOf: Order })
class OrderRepository extends BaseRepository<Order> {
  async placedBy(customer: string) {
    return this.query({ filter: { customer } });
  }

  async ordersOf(customer: string) {
    return this.count({ customer });
  }

  async withTotal(id: string) {
    const order = await this.get(id);
    return { order, total: order.total ?? 0 };
  }

  // Overriding a generic method keeps its type, and `super` reaches the framework's.
  override async add(order: Order): Promise<Order> {
    order.customer = order.customer.trim();
    return super.add(order);
  }
}

describe('custom repositories', () => {
  it('have the generic methods, typed for their aggregate', () => {
    expectTypeOf<OrderRepository['add']>().parameters.toEqualTypeOf<[Order]>();
    expectTypeOf<OrderRepository['add']>().returns.toEqualTypeOf<Promise<Order>>();
    expectTypeOf<OrderRepository['get']>().returns.toEqualTypeOf<Promise<Order>>();
    expectTypeOf<OrderRepository['find']>().returns.toEqualTypeOf<Promise<Order | undefined>>();
    expectTypeOf<OrderRepository['query']>().parameters.toEqualTypeOf<[spec?: QuerySpec<Order>]>();
    expectTypeOf<OrderRepository['query']>().returns.toEqualTypeOf<Promise<Order[]>>();
    expectTypeOf<OrderRepository['count']>().returns.toEqualTypeOf<Promise<number>>();
    expectTypeOf<OrderRepository['delete']>().parameters.toEqualTypeOf<[target: Order | string]>();
  });

  it('type the methods written with them', () => {
    expectTypeOf<OrderRepository['placedBy']>().returns.toEqualTypeOf<Promise<Order[]>>();
    expectTypeOf<OrderRepository['ordersOf']>().returns.toEqualTypeOf<Promise<number>>();
    expectTypeOf<OrderRepository['withTotal']>().returns.toEqualTypeOf<Promise<{ order: Order; total: number }>>();
  });

  it('are what domain.repositoryFor(TheRepositoryClass) returns; the aggregate class still gives the generic type', () => {
    expectTypeOf(domain.repositoryFor(OrderRepository)).toEqualTypeOf<OrderRepository>();
    expectTypeOf(domain.repositoryFor(Order)).toEqualTypeOf<Repository<Order>>();
    expectTypeOf(domain.repositoryFor(Invoice)).toEqualTypeOf<Repository<Invoice>>();
  });

  it('refuse aggregates of another type', () => {
    const orders = domain.repositoryFor(OrderRepository);
    const invoice = Invoice.create({ number: 'I-1' });
    // @ts-expect-error an Invoice is not an Order
    void orders.add(invoice);
    // @ts-expect-error nor can one be deleted through the Order repository
    void orders.delete(invoice);
    // @ts-expect-error ids are strings
    void orders.get(42);
  });

  it('keep `repository` protected, and refuse overrides that change a generic method type', () => {
    const orders = domain.repositoryFor(OrderRepository);
    // @ts-expect-error `repository` is for the subclass's methods
    void orders.repository;
    class Broken extends BaseRepository<Order> {
      // @ts-expect-error get must resolve to an Order
      override async get(id: string): Promise<string> {
        return id;
      }
    }
    void Broken;
  });
});
