import { describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  BaseQuery,
  BaseQueryHandler,
  BaseValueObject,
  Domain,
  DomainModelError,
  field,
  handle,
  read,
} from '../../src/index.js';

/** A domain with one aggregate, to which each test adds the element under test. */
function withOrder() {
  const domain = new Domain('Shop');
  @domain.aggregate()
  class Order extends BaseAggregate {
    @field.string() customer?: string;
  }
  return { domain, Order };
}

async function initRefusal(domain: Domain): Promise<string[]> {
  const error = await domain.init({ config: { databases: { default: { provider: 'memory' } } } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await domain.close();
  expect(error).toBeInstanceOf(DomainModelError);
  return domain.validateModel();
}

describe('domain.init() refuses', () => {
  it('two handlers for one query, naming both', async () => {
    const { domain, Order } = withOrder();
    @domain.query({ partOf: Order })
    class OrdersOfCustomer extends BaseQuery<string[]> {}
    @domain.queryHandler({ partOf: Order })
    class OrderQueries extends BaseQueryHandler {
      @read(OrdersOfCustomer) list(): string[] {
        return [];
      }
    }
    @domain.queryHandler({ partOf: Order })
    class ReportQueries extends BaseQueryHandler {
      @read(OrdersOfCustomer) report(): string[] {
        return [];
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'query OrdersOfCustomer is answered by 2 methods (OrderQueries.list, ReportQueries.report); a query has exactly one @read method in one query handler',
    ]);
    expect(OrderQueries && ReportQueries).toBeTruthy();
  });

  it('two methods of one handler for one query', async () => {
    const { domain, Order } = withOrder();
    @domain.query({ partOf: Order })
    class Count extends BaseQuery<number> {}
    @domain.queryHandler({ partOf: Order })
    class OrderQueries extends BaseQueryHandler {
      @read(Count) one(): number {
        return 1;
      }
      @read(Count) two(): number {
        return 2;
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'query Count is answered by 2 methods (OrderQueries.one, OrderQueries.two); a query has exactly one @read method in one query handler',
    ]);
    expect(OrderQueries).toBeTruthy();
  });

  it('@read naming a class that is not a registered query', async () => {
    const { domain, Order } = withOrder();
    class NotRegistered extends BaseQuery<number> {}
    @domain.command({ partOf: Order })
    class PlaceOrder extends BaseCommand {}
    @domain.queryHandler({ partOf: Order })
    class OrderQueries extends BaseQueryHandler {
      @read(NotRegistered) count(): number {
        return 0;
      }
      @read(PlaceOrder as never) place(): number {
        return 0;
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'OrderQueries.count: @read(NotRegistered) names a class that is not a registered query (decorate it with @domain.query({ partOf: ... }))',
      'OrderQueries.place: @read(PlaceOrder) names a class that is not a registered query (decorate it with @domain.query({ partOf: ... }))',
    ]);
    expect(OrderQueries).toBeTruthy();
  });

  it('a query handler or a query without partOf', async () => {
    const { domain } = withOrder();
    @domain.query({} as never)
    class Count extends BaseQuery<number> {}
    @domain.queryHandler({} as never)
    class OrderQueries extends BaseQueryHandler {
      @read(Count) count(): number {
        return 0;
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'Count (query): has no partOf; name the aggregate or projection it reads: @domain.query({ partOf: ... })',
      'OrderQueries (query handler): has no partOf; name the aggregate or projection it reads: @domain.queryHandler({ partOf: ... })',
    ]);
    expect(OrderQueries).toBeTruthy();
  });

  it('a partOf that is not a registered aggregate', async () => {
    const { domain } = withOrder();
    @domain.valueObject()
    class Money extends BaseValueObject {}
    class Unregistered extends BaseAggregate {}
    @domain.query({ partOf: Money })
    class Count extends BaseQuery<number> {}
    @domain.queryHandler({ partOf: Unregistered })
    class OrderQueries extends BaseQueryHandler {
      @read(Count) count(): number {
        return 0;
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'Count (query): partOf Money is not a registered aggregate or projection',
      'OrderQueries (query handler): partOf Unregistered is not a registered aggregate or projection',
    ]);
    expect(OrderQueries).toBeTruthy();
  });

  it('@handle in a query handler, and @read outside one', async () => {
    const { domain, Order } = withOrder();
    @domain.command({ partOf: Order })
    class PlaceOrder extends BaseCommand {}
    @domain.query({ partOf: Order })
    class Count extends BaseQuery<number> {}
    @domain.queryHandler({ partOf: Order })
    class OrderQueries extends BaseQueryHandler {
      @read(Count) count(): number {
        return 0;
      }
      @handle(PlaceOrder) place(): void {}
    }
    @domain.commandHandler({ partOf: Order })
    class OrderCommands extends BaseCommandHandler {
      @handle(PlaceOrder) place(): void {}
      @read(Count) count(): number {
        return 0;
      }
    }
    expect(await initRefusal(domain)).toEqual([
      'OrderQueries.place: @handle(PlaceOrder) in a query handler; query handlers answer queries with @read(Query), commands and events go to command and event handlers',
      'OrderCommands.count: @read(Count) only works in a @domain.queryHandler class, and OrderCommands is not one',
    ]);
    expect(OrderQueries && OrderCommands).toBeTruthy();
  });

  it('a query field whose target is not a registered value object', async () => {
    const { domain, Order } = withOrder();
    class Period extends BaseValueObject {}
    @domain.query({ partOf: Order })
    class Revenue extends BaseQuery<number> {
      @field.valueObject(() => Period) period?: Period;
    }
    expect(await initRefusal(domain)).toEqual(['Revenue.period: valueObject target Period is not a registered value object']);
    expect(Revenue).toBeTruthy();
  });

  it('a query named like another element', async () => {
    const { domain, Order } = withOrder();
    @domain.query({ partOf: Order, name: 'Order' })
    class OrderById extends BaseQuery<number> {}
    expect(await initRefusal(domain)).toEqual(['"Order" is registered 2 times: Order (aggregate), OrderById (query); rename one (messages may set { name })']);
    expect(OrderById).toBeTruthy();
  });
});

describe('query registration', () => {
  it('refuses a query decorator on a class that is not a BaseQuery', () => {
    const { domain, Order } = withOrder();
    expect(() => domain.query({ partOf: Order })(class NotAQuery extends BaseCommand {} as never)).toThrow(
      'NotAQuery cannot be registered as query: it extends the base of command',
    );
    expect(() => domain.queryHandler({ partOf: Order })(class Plain {} as never)).toThrow(
      'Plain cannot be registered as queryHandler: it extends no protean-ts base class',
    );
  });

  it('infers the kind from the base class in domain.register', () => {
    const { domain, Order } = withOrder();
    class Count extends BaseQuery<number> {}
    class OrderQueries extends BaseQueryHandler {}
    domain.register(Count, { partOf: Order });
    domain.register(OrderQueries, { partOf: Order });
    expect(domain.recordOf(Count)?.kind).toBe('query');
    expect(domain.recordOf(OrderQueries)?.kind).toBe('queryHandler');
  });

  it('keeps @read marks of a base handler class', async () => {
    const { domain, Order } = withOrder();
    @domain.query({ partOf: Order })
    class Count extends BaseQuery<number> {}
    class CountingQueries extends BaseQueryHandler {
      @read(Count) count(): number {
        return 7;
      }
    }
    @domain.queryHandler({ partOf: Order })
    class OrderQueries extends CountingQueries {}
    await domain.init({ config: { databases: { default: { provider: 'memory' } } } });
    try {
      await expect(domain.dispatch(Count.create())).resolves.toBe(7);
    } finally {
      await domain.close();
    }
    expect(OrderQueries).toBeTruthy();
  });
});
