import { describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseEntity,
  BaseEvent,
  BaseValueObject,
  Domain,
  field,
  ImmutableElementError,
  markPersisted,
  ValidationError,
} from '../../src/index.js';

const domain = new Domain('Shop');

@domain.valueObject()
class Address extends BaseValueObject {
  @field.string({ required: true }) street!: string;
  @field.string() city?: string;
}

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true, maxLength: 50 }) customer!: string;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];
  @field.hasOne(() => Note) note?: Note;
  @field.valueObject(() => Address) shippingAddress?: Address;
}

@domain.entity({ partOf: Order })
class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer({ min: 1 }) quantity!: number;
}

@domain.entity({ partOf: Order })
class Note extends BaseEntity {
  @field.text() body?: string;
}

@domain.aggregate()
class Product extends BaseAggregate {
  @field.string({ identifier: true }) sku!: string;
  @field.string() title?: string;
}

@domain.event({ partOf: Order })
class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
}

@domain.command({ partOf: Order })
class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('aggregates and entities', () => {
  it('get a uuid v4 identity and start at version -1', () => {
    const order = Order.create({ customer: 'Ann' });
    expect(order.id).toMatch(UUID_V4);
    expect(order._version).toBe(-1);
    expect(Order.create({ customer: 'Bo' }).id).not.toBe(order.id);
    expect(Order.create({ customer: 'Cy', id: 'given-id' }).id).toBe('given-id');
  });

  it('use a declared identifier field instead of the implicit id', () => {
    const p = Product.create({ sku: 'SKU-1' });
    expect(p.id).toBe('SKU-1');
    expect(() => Product.create({ title: 'x' } as never)).toThrow('Invalid Product: sku: is required');
    expect(() => Product.create({ sku: 'A', id: 'x' } as never)).toThrow('id: is not a field of Product');
  });

  it('refuse to change identity once set', () => {
    const order = Order.create({ customer: 'Ann' });
    const id = order.id;
    expect(() => Object.assign(order, { id: 'other' })).toThrow(TypeError);
    const product = Product.create({ sku: 'A' });
    expect(() => {
      product.sku = 'B';
    }).toThrow(/sku: cannot be changed once set/);
    expect(order.id).toBe(id);
    expect(product.sku).toBe('A');
  });

  it('are equal by identity and class', () => {
    const a = Order.create({ customer: 'Ann', id: 'o-1' });
    const b = Order.fromPlain({ id: 'o-1', customer: 'Someone else' });
    expect(a.equals(b)).toBe(true);
    expect(a.equals(Order.create({ customer: 'Ann' }))).toBe(false);
    expect(Note.create({ id: 'o-1' }).equals(a)).toBe(false);
  });

  it('build children from plain objects and attach them to the aggregate', () => {
    const order = Order.create({ customer: 'Ann', lines: [{ sku: 'A', quantity: 1 }], note: { body: 'fragile' } });
    expect(order.lines![0]).toBeInstanceOf(OrderLine);
    expect(order.lines![0]!.id).toMatch(UUID_V4);
    expect(order.note).toBeInstanceOf(Note);
    expect(order.lines).toEqual(Object.freeze(order.lines));
    expect(() => (order.lines as OrderLine[]).push(OrderLine.create({ sku: 'B', quantity: 1 }))).toThrow(TypeError);
    order.lines = [...order.lines!, OrderLine.create({ sku: 'B', quantity: 2 })];
    expect(order.lines.map((l) => l.sku)).toEqual(['A', 'B']);
  });

  it('report every bad field of the aggregate and its children at once', () => {
    let error: ValidationError | undefined;
    try {
      Order.create({ customer: '', lines: [{ sku: '', quantity: 0 }], shippingAddress: {} as never });
    } catch (e) {
      error = e as ValidationError;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error!.errors).toEqual({
      customer: ['is required'],
      'lines.0.sku': ['is required'],
      'lines.0.quantity': ['must be at least 1'],
      'shippingAddress.street': ['is required'],
    });
    expect(error!.message).toBe(
      'Invalid Order: customer: is required; lines.0.sku: is required; lines.0.quantity: must be at least 1; shippingAddress.street: is required',
    );
  });

  it('markPersisted sets the version the unit of work stored', () => {
    const order = Order.create({ customer: 'Ann' });
    markPersisted(order, 0);
    expect(order._version).toBe(0);
    expect(() => markPersisted(order, -3)).toThrow(RangeError);
  });
});

describe('value objects', () => {
  it('are equal by value and immutable', () => {
    const a = Address.create({ street: 'Main', city: 'X' });
    expect(a.equals(Address.create({ city: 'X', street: 'Main' }))).toBe(true);
    expect(a.equals(Address.create({ street: 'Main' }))).toBe(false);
    expect(() => {
      a.street = 'Other';
    }).toThrow(ImmutableElementError);
    expect(() => {
      a.street = 'Other';
    }).toThrow('Address is immutable: cannot assign "street"');
    expect(a.street).toBe('Main');
  });

  it('have no identity', () => {
    expect(Object.keys(Address.create({ street: 'Main' }).toPlain())).toEqual(['street', 'city']);
  });
});

describe('events and commands', () => {
  it('are immutable after creation', () => {
    const e = OrderPlaced.create({ orderId: 'o-1' });
    const c = PlaceOrder.create({ customer: 'Ann' });
    expect(() => {
      e.orderId = 'x';
    }).toThrow(ImmutableElementError);
    expect(() => {
      c.customer = 'x';
    }).toThrow(/PlaceOrder is immutable/);
    expect(e._metadata).toBeUndefined();
  });

  it('are equal by class and data', () => {
    expect(OrderPlaced.create({ orderId: 'a' }).equals(OrderPlaced.create({ orderId: 'a' }))).toBe(true);
    expect(OrderPlaced.create({ orderId: 'a' }).equals(OrderPlaced.create({ orderId: 'b' }))).toBe(false);
  });

  it('validate like any element', () => {
    expect(() => PlaceOrder.create({} as never)).toThrow('Invalid PlaceOrder: customer: is required');
  });
});

describe('identity strategies', () => {
  it('use the Domain identityFunction for new aggregates and entities', () => {
    let n = 0;
    const numbered = new Domain('Numbered', { identityFunction: () => `n-${++n}` });
    @numbered.aggregate()
    class Ticket extends BaseAggregate {
      @field.hasMany(() => Stub) stubs?: Stub[];
    }
    @numbered.entity({ partOf: Ticket })
    class Stub extends BaseEntity {
      @field.string() seat?: string;
    }
    const t = Ticket.create({ stubs: [{ seat: '1A' }] });
    expect(t.id).toBe('n-1');
    expect(t.stubs![0]!.id).toBe('n-2');
    expect(Stub.create({}).id).toBe('n-3');
  });

  it('reject identity_strategy "function" without an identityFunction', () => {
    expect(() => new Domain('Plain').registry.checkIdentityStrategy('function')).toThrow(/identity_strategy = "function" needs/);
    expect(() => new Domain('Fn', { identityFunction: () => 'x' }).registry.checkIdentityStrategy('function')).not.toThrow();
  });

  it('report an identityFunction that returns nothing usable', () => {
    const broken = new Domain('Broken', { identityFunction: () => '' });
    @broken.aggregate()
    class Thing extends BaseAggregate {}
    expect(() => Thing.create()).toThrow(/identityFunction returned ""/);
  });
});
