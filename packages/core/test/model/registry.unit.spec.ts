import { describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseApplicationService,
  BaseCommand,
  BaseCommandHandler,
  BaseEntity,
  BaseEvent,
  BaseEventHandler,
  BaseRepository,
  BaseSubscriber,
  BaseValueObject,
  Domain,
  field,
  handle,
  RegistrationError,
  snakeCase,
} from '../../src/index.js';

/** Fresh, unregistered classes of one small model, so each test registers its own. */
function model() {
  class OrderLine extends BaseEntity {
    @field.string({ required: true }) sku!: string;
  }
  class Order extends BaseAggregate {
    @field.string({ required: true }) customer!: string;
    @field.hasMany(() => OrderLine) lines?: OrderLine[];
  }
  class OrderPlaced extends BaseEvent {
    @field.identifier() orderId?: string;
  }
  class PlaceOrder extends BaseCommand {
    @field.string() customer?: string;
  }
  class OrderCommands extends BaseCommandHandler {
    @handle(PlaceOrder) place(_c: PlaceOrder): void {}
  }
  class Notifier extends BaseEventHandler {
    @handle(OrderPlaced) one(_e: OrderPlaced): void {}
  }
  class Checkout extends BaseApplicationService {}
  class Orders extends BaseRepository<Order> {}
  class Payments extends BaseSubscriber {
    receive(): void {}
  }
  class Address extends BaseValueObject {
    @field.string() street?: string;
  }
  return { Order, OrderLine, OrderPlaced, PlaceOrder, OrderCommands, Notifier, Checkout, Orders, Payments, Address };
}

describe('registration', () => {
  it('register infers the kind from the base class and matches the decorators', () => {
    const viaRegister = new Domain('MyShop');
    const m = model();
    viaRegister.register(m.Order);
    viaRegister.register(m.OrderLine, { partOf: m.Order });
    viaRegister.register(m.OrderPlaced, { partOf: m.Order });
    viaRegister.register(m.PlaceOrder, { partOf: m.Order });
    viaRegister.register(m.OrderCommands, { partOf: m.Order });
    viaRegister.register(m.Notifier, { streamCategory: m.Order });
    viaRegister.register(m.Checkout);
    viaRegister.register(m.Orders, { partOf: m.Order });
    viaRegister.register(m.Payments, { stream: 'payments' });
    viaRegister.register(m.Address);
    expect(viaRegister.validateModel()).toEqual([]);

    const viaDecorators = new Domain('MyShop');
    const d = model();
    viaDecorators.aggregate()(d.Order);
    viaDecorators.entity({ partOf: d.Order })(d.OrderLine);
    viaDecorators.event({ partOf: d.Order })(d.OrderPlaced);
    viaDecorators.command({ partOf: d.Order })(d.PlaceOrder);
    viaDecorators.commandHandler({ partOf: d.Order })(d.OrderCommands);
    viaDecorators.eventHandler({ streamCategory: d.Order })(d.Notifier);
    viaDecorators.applicationService()(d.Checkout);
    viaDecorators.repository({ partOf: d.Order })(d.Orders);
    viaDecorators.subscriber({ stream: 'payments' })(d.Payments);
    viaDecorators.valueObject()(d.Address);

    const strip = (domain: Domain) =>
      domain.registry
        .allRecords()
        .map((r) => ({ kind: r.kind, name: r.name, options: JSON.parse(JSON.stringify(r.options, (_k, v) => (typeof v === 'function' ? v.name : v))) }));
    expect(strip(viaDecorators)).toEqual(strip(viaRegister));
  });

  it('applies defaults in one place', () => {
    const domain = new Domain('My Shop');
    const m = model();
    domain.register(m.Order);
    domain.register(m.OrderLine, { partOf: m.Order });
    domain.register(m.OrderPlaced, { partOf: m.Order });
    domain.register(m.OrderCommands, { partOf: m.Order });
    domain.register(m.Payments, { stream: 'payments' });
    expect(domain.recordOf(m.Order)!.options).toEqual({
      provider: 'default',
      providerGiven: false,
      streamCategory: 'my_shop::order',
      schemaName: 'order',
      isEventSourced: false,
    });
    expect(domain.recordOf(m.OrderLine)!.options).toMatchObject({ schemaName: 'order_line' });
    expect(domain.recordOf(m.OrderPlaced)!.options).toMatchObject({ version: 1, published: false, streamCategory: undefined });
    expect(domain.recordOf(m.OrderCommands)!.options).toMatchObject({ subscriptionName: 'OrderCommands', ownTransaction: false });
    expect(domain.recordOf(m.Payments)!.options).toEqual({ stream: 'payments', broker: 'default' });
    expect(snakeCase('HTTPServerLog')).toBe('http_server_log');
  });

  it('refuses a decorator on the wrong base, a class registered twice, and bad options', () => {
    const domain = new Domain('Shop');
    const m = model();
    expect(() => domain.entity({ partOf: m.Order })(m.Order as never)).toThrow('Order cannot be registered as entity: it extends the base of aggregate');
    class Plain {}
    expect(() => domain.register(Plain)).toThrow(/extends no protean-ts base class/);
    domain.register(m.Order);
    expect(() => domain.register(m.Order)).toThrow('Order is already registered with domain "Shop" as aggregate');
    expect(() => domain.register(m.OrderPlaced, { version: 0 })).toThrow(/version must be an integer >= 1/);
    expect(() => domain.register(m.Payments, {} as never)).toThrow(/a subscriber needs the broker stream/);
    expect(() => domain.register(m.OrderCommands, { partOf: m.Order, ownTransaction: 'yes' } as never)).toThrow(
      'OrderCommands: ownTransaction must be true or false, got "yes"',
    );
    expect(() => domain.register(m.Address, { schemaName: '' } as never)).not.toThrow();
    expect(() => new Domain('')).toThrow(/non-empty name/);
  });

  it('freezes registration once frozen (init freezes it)', () => {
    const domain = new Domain('Shop');
    const m = model();
    domain.register(m.Order);
    domain.registry.freeze();
    expect(domain.registry.isFrozen).toBe(true);
    expect(() => domain.register(m.OrderPlaced, { partOf: m.Order })).toThrow(/is initialized; register OrderPlaced before domain.init\(\)/);
  });
});

describe('lookups', () => {
  const domain = new Domain('Shop');
  const m = model();
  domain.register(m.Order);
  domain.register(m.OrderLine, { partOf: m.Order });
  domain.register(m.OrderPlaced, { partOf: m.Order, version: 2 });
  domain.register(m.PlaceOrder, { partOf: m.Order });
  domain.register(m.OrderCommands, { partOf: m.Order });
  domain.register(m.Notifier, { streamCategory: 'elsewhere::thing' });
  domain.register(m.Orders, { partOf: m.Order });

  it('finds records by kind and class', () => {
    expect(domain.recordsOf('aggregate').map((r) => r.cls)).toEqual([m.Order]);
    expect(domain.recordOf(m.Notifier)!.kind).toBe('eventHandler');
    expect(domain.recordOf(class Nope {})).toBeUndefined();
    expect(() => domain.registry.requireRecord(m.Address)).toThrow(/Address is not registered with domain "Shop"/);
  });

  it('maps message types to classes and back', () => {
    expect(domain.messageTypeOf(m.OrderPlaced)).toBe('Shop.OrderPlaced.v2');
    expect(domain.messageClassFor('Shop.OrderPlaced.v2')).toBe(m.OrderPlaced);
    expect(domain.messageClassFor('Shop.PlaceOrder.v1')).toBe(m.PlaceOrder);
    expect(domain.messageClassFor('Shop.OrderPlaced.v1')).toBeUndefined();
    expect(domain.registry.messageInfo(m.PlaceOrder)).toMatchObject({
      kind: 'COMMAND',
      fqn: 'Shop.PlaceOrder',
      streamCategory: 'shop::order',
      partOf: m.Order,
    });
  });

  it('finds the handlers of a message type with their method names', () => {
    const bindings = domain.handlersFor('Shop.OrderPlaced.v2');
    expect(bindings.map((b) => [b.cls, b.methods])).toEqual([[m.Notifier, ['one']]]);
    expect(domain.handlersFor('Shop.PlaceOrder.v1').map((b) => b.cls)).toEqual([m.OrderCommands]);
    expect(domain.handlersFor('Shop.Unknown.v1')).toEqual([]);
  });

  it('gives handler stream categories and the aggregate of an element', () => {
    expect(domain.registry.handlerStreamCategory(m.OrderCommands)).toBe('shop::order');
    expect(domain.registry.handlerStreamCategory(m.Notifier)).toBe('elsewhere::thing');
    expect(domain.aggregateOf(m.OrderLine)!.cls).toBe(m.Order);
    expect(domain.aggregateOf(m.Orders)!.cls).toBe(m.Order);
    expect(domain.aggregateOf(m.Notifier)).toBeUndefined();
  });

  it('builds the aggregate schema with child entities', () => {
    const schema = domain.aggregateSchemaFor(m.Order);
    expect(schema).toMatchObject({ aggregate: m.Order, name: 'Order', tableName: 'order', provider: 'default', identityField: 'id' });
    expect(schema.fields.map((f) => f.name)).toEqual(['id', 'customer', 'lines']);
    expect(schema.entities.map((e) => [e.entity, e.tableName, e.identityField, e.fields.map((f) => f.name)])).toEqual([
      [m.OrderLine, 'order_line', 'id', ['id', 'sku']],
    ]);
    expect(() => domain.aggregateSchemaFor(m.OrderLine as never)).toThrow(RegistrationError);
  });
});
