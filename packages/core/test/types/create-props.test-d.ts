import { describe, expectTypeOf, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseEvent, BaseValueObject, Domain, field, type CreateProps } from '../../src/index.js';

const domain = new Domain('Types');

@domain.valueObject()
class Address extends BaseValueObject {
  @field.string({ required: true }) street!: string;
  @field.string() city?: string;
}

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.status({ values: ['NEW', 'DONE'], default: 'NEW' }) status?: 'NEW' | 'DONE';
  @field.hasMany(() => Line) lines?: Line[];
  @field.valueObject(() => Address) address?: Address;
  @field.datetime({ autoNow: true }) placedAt?: Date;
  private cache = new Map<string, number>();
  protected note = 'internal';
  get lineCount(): number {
    this.cache.clear();
    return this.lines?.length ?? 0;
  }
  close(): void {
    this.status = 'DONE';
  }
}

@domain.entity({ partOf: Order })
class Line extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer({ min: 1 }) quantity!: number;
}

@domain.event({ partOf: Order })
class OrderClosed extends BaseEvent {
  @field.identifier({ required: true }) readonly orderId!: string;
}

describe('CreateProps', () => {
  it('returns the subclass type from create', () => {
    expectTypeOf(Order.create({ customer: 'Ann' })).toEqualTypeOf<Order>();
    expectTypeOf(Line.create({ sku: 'A', quantity: 1 })).toEqualTypeOf<Line>();
    expectTypeOf(Address.create({ street: 'Main' })).toEqualTypeOf<Address>();
    expectTypeOf(OrderClosed.create({ orderId: 'x' })).toEqualTypeOf<OrderClosed>();
  });

  it('rejects a misspelt key', () => {
    // @ts-expect-error `custmer` is not a field of Order
    Order.create({ custmer: 'Ann' });
    // @ts-expect-error `qty` is not a field of Line
    Line.create({ sku: 'A', quantity: 1, qty: 2 });
  });

  it('rejects a wrong value type', () => {
    // @ts-expect-error customer is a string
    Order.create({ customer: 42 });
    // @ts-expect-error quantity is a number
    Line.create({ sku: 'A', quantity: '2' });
    // @ts-expect-error status is one of its literal values
    Order.create({ customer: 'Ann', status: 'OPEN' });
  });

  it('requires required keys', () => {
    // @ts-expect-error customer is required
    Order.create({});
    // @ts-expect-error sku is required
    Line.create({ quantity: 1 });
    // @ts-expect-error the argument is required when a key is
    Address.create();
  });

  it('keeps optional keys, id, nested plain objects and ISO dates optional or accepted', () => {
    Order.create({
      customer: 'Ann',
      id: 'o-1',
      lines: [{ sku: 'A', quantity: 1 }, Line.create({ sku: 'B', quantity: 2 })],
      address: { street: 'Main' },
      placedAt: '2024-01-01T00:00:00Z',
    });
    // @ts-expect-error nested plain objects are checked too
    Order.create({ customer: 'Ann', address: { stret: 'Main' } });
    expectTypeOf<CreateProps<Order>>().toHaveProperty('customer').toEqualTypeOf<string>();
    expectTypeOf<keyof CreateProps<Order>>().not.toEqualTypeOf<'lineCount' | 'close' | '_version'>();
  });

  it('leaves out methods, getters and framework members', () => {
    type Keys = keyof CreateProps<Order>;
    expectTypeOf<'close' extends Keys ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<'_version' extends Keys ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<'raise' extends Keys ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<'note' extends Keys ? true : false>().toEqualTypeOf<false>();
    // a getter is readonly, so it may be given but is never required
    Order.create({ customer: 'Ann' });
  });

  it('makes a defaulted field optional only when declared with ? (docs/domain-model.md, defaulted fields)', () => {
    Order.create({ customer: 'Ann' });
    expectTypeOf(Order.create({ customer: 'Ann' }).status).toEqualTypeOf<'NEW' | 'DONE' | undefined>();
    class Strict extends BaseAggregate {
      @field.status({ values: ['NEW', 'DONE'], default: 'NEW' }) status!: 'NEW' | 'DONE';
    }
    // @ts-expect-error declared with `!`, it must be given even though its field has a default
    Strict.create({});
    expectTypeOf(Strict.create({ status: 'NEW' }).status).toEqualTypeOf<'NEW' | 'DONE'>();
  });

  it('accepts readonly fields on messages', () => {
    OrderClosed.create({ orderId: 'o-1' });
    // @ts-expect-error orderId is a string
    OrderClosed.create({ orderId: 1 });
  });

  it('cannot create the abstract bases', () => {
    // @ts-expect-error BaseAggregate is abstract
    BaseAggregate.create({});
  });

  it('checks the declared property type against the field kind', () => {
    class Bad extends BaseAggregate {
      // @ts-expect-error an integer field cannot hold a string
      @field.integer() count!: string;
    }
    expectTypeOf<Bad>().toHaveProperty('count');
  });
});
