import { describe, expectTypeOf, it } from 'vitest';
import {
  BaseAggregate,
  BaseApplicationService,
  BaseCommand,
  BaseDomainService,
  BaseQuery,
  BaseQueryHandler,
  BaseValueObject,
  Domain,
  field,
  read,
  useCase,
  type QueryResult,
} from '../../src/index.js';

const domain = new Domain('QueryTypes');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string() customer?: string;
}

@domain.aggregate()
class Inventory extends BaseAggregate {}

interface OrderView {
  id: string;
  customer: string;
}

@domain.query({ partOf: Order })
class OrdersOfCustomer extends BaseQuery<OrderView[]> {
  @field.string({ required: true }) customer!: string;
}

@domain.query({ partOf: Order })
class OrdersOverTotal extends BaseQuery<OrderView[]> {
  @field.integer({ required: true }) total!: number;
}

@domain.query({ partOf: Order })
class Untyped extends BaseQuery {}

@domain.command({ partOf: Order })
class PlaceOrder extends BaseCommand {}

describe('queries', () => {
  it('dispatch resolves to the answer type the query declares', () => {
    const query = OrdersOfCustomer.create({ customer: 'Ann' });
    expectTypeOf(domain.dispatch(query)).toEqualTypeOf<Promise<OrderView[]>>();
    expectTypeOf<QueryResult<OrdersOfCustomer>>().toEqualTypeOf<OrderView[]>();
    expectTypeOf(domain.dispatch(Untyped.create())).toEqualTypeOf<Promise<unknown>>();
  });

  it('dispatch takes only queries', () => {
    // @ts-expect-error a command is processed, not dispatched
    void domain.dispatch(PlaceOrder.create());
    // @ts-expect-error a plain object is not a query
    void domain.dispatch({ customer: 'Ann' });
  });

  it('create takes the query fields', () => {
    // @ts-expect-error customer is required
    OrdersOfCustomer.create({});
    // @ts-expect-error not a field of the query
    OrdersOfCustomer.create({ customer: 'Ann', total: 3 });
  });

  it('the query decorators accept only their bases', () => {
    // @ts-expect-error a value object is not a query
    domain.query({ partOf: Order })(class Money extends BaseValueObject {});
    // @ts-expect-error a command is not a query
    domain.query({ partOf: Order })(PlaceOrder);
    // @ts-expect-error partOf is required
    domain.queryHandler({})(class Answers extends BaseQueryHandler {});
    // @ts-expect-error a domain service names a list of aggregates
    domain.domainService({ partOf: Order })(class Pricing extends BaseDomainService {});
    expectTypeOf(domain.query({ partOf: Order })(OrdersOfCustomer)).toEqualTypeOf<typeof OrdersOfCustomer>();
  });

  it('@read checks the method takes the query and returns its answer', () => {
    class Answers extends BaseQueryHandler {
      @read(OrdersOfCustomer) ofCustomer(query: OrdersOfCustomer): OrderView[] {
        return [{ id: '1', customer: query.customer }];
      }
      @read(OrdersOfCustomer) async later(query: OrdersOfCustomer): Promise<OrderView[]> {
        return [{ id: '1', customer: query.customer }];
      }
      // @ts-expect-error the answer of OrdersOfCustomer is OrderView[], not a number
      @read(OrdersOfCustomer) count(): number {
        return 0;
      }
      // @ts-expect-error the method takes another query
      @read(OrdersOfCustomer) other(query: OrdersOverTotal): OrderView[] {
        return query.total ? [] : [];
      }
      @read(Untyped) anything(): string {
        return 'an untyped query may answer anything';
      }
    }
    expectTypeOf<Answers['ofCustomer']>().returns.toEqualTypeOf<OrderView[]>();
  });

  it('@useCase decorates only methods returning a promise', () => {
    class Orders extends BaseApplicationService {
      @useCase() async place(customer: string): Promise<string> {
        return customer;
      }
      // @ts-expect-error a use case runs in a unit of work, so it is asynchronous
      @useCase() placeNow(customer: string): string {
        return customer;
      }
    }
    expectTypeOf<Orders['place']>().toEqualTypeOf<(customer: string) => Promise<string>>();
  });

  it('a domain service is built around aggregates', () => {
    class Placement extends BaseDomainService {
      constructor(order: Order, inventory: Inventory) {
        super(order, inventory);
      }
    }
    expectTypeOf(new Placement(Order.create(), Inventory.create())).toEqualTypeOf<Placement>();
    class Wrong extends BaseDomainService {
      constructor() {
        // @ts-expect-error a domain service works on aggregates
        super('order');
      }
    }
    expectTypeOf<Wrong>().toBeObject();
  });
});
