import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseEvent, BaseValueObject, Domain, field, ValidationError } from '../../src/index.js';

const domain = new Domain('Plain');

@domain.valueObject()
class Money extends BaseValueObject {
  @field.decimal({ required: true }) amount!: number;
  @field.string({ default: 'EUR' }) currency?: string;
}

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.date() due?: Date;
  @field.datetime({ autoNow: true }) createdAt?: Date;
  @field.list({ of: 'date' }) holidays?: Date[];
  @field.list({ of: () => Money }) payments?: Money[];
  @field.dict() meta?: Record<string, unknown>;
  @field.valueObject(() => Money) total?: Money;
  @field.hasMany(() => Line) lines?: Line[];
  @field.string({ default: 'web' }) channel?: string;
}

@domain.entity({ partOf: Order })
class Line extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.hasOne(() => Gift) gift?: Gift;
}

@domain.entity({ partOf: Line })
class Gift extends BaseEntity {
  @field.text() message?: string;
}

@domain.event({ partOf: Order })
class Placed extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.datetime() at?: Date;
}

describe('toPlain', () => {
  it('gives plain values: nested elements as objects, dates as ISO strings, missing as null', () => {
    const order = Order.create({
      id: 'o-1',
      customer: 'Ann',
      due: '2024-05-06',
      createdAt: '2024-05-01T10:00:00.000Z',
      holidays: ['2024-12-25'],
      payments: [{ amount: 5 }],
      meta: { source: 'test' },
      lines: [{ id: 'l-1', sku: 'A', gift: { id: 'g-1', message: 'hi' } }],
    });
    expect(order.toPlain()).toEqual({
      id: 'o-1',
      customer: 'Ann',
      due: '2024-05-06',
      createdAt: '2024-05-01T10:00:00.000Z',
      holidays: ['2024-12-25'],
      payments: [{ amount: 5, currency: 'EUR' }],
      meta: { source: 'test' },
      total: null,
      lines: [{ id: 'l-1', sku: 'A', gift: { id: 'g-1', message: 'hi' } }],
      channel: 'web',
    });
    expect(JSON.parse(JSON.stringify(order))).toEqual(order.toPlain());
  });
});

describe('fromPlain', () => {
  it('round-trips an aggregate with children and marks it persisted at the given version', () => {
    const order = Order.create({ customer: 'Ann', lines: [{ sku: 'A', gift: { message: 'hi' } }], total: { amount: 3 } });
    const plain = JSON.parse(JSON.stringify(order)) as Record<string, unknown>;
    const back = Order.fromPlain(plain, { version: 7 });
    expect(back._version).toBe(7);
    expect(back.toPlain()).toEqual(order.toPlain());
    expect(back.lines![0]).toBeInstanceOf(Line);
    expect(back.lines![0]!.gift).toBeInstanceOf(Gift);
    expect(back.total!.equals(order.total)).toBe(true);
    expect(back.createdAt!.getTime()).toBe(order.createdAt!.getTime());
    expect(back.pendingEvents()).toEqual([]);
  });

  it('reads _version from the plain object when no option is given', () => {
    expect(Order.fromPlain({ id: 'o', customer: 'A', _version: 2 })._version).toBe(2);
    expect(Order.fromPlain({ id: 'o', customer: 'A' })._version).toBe(-1);
  });

  it('keeps stored values instead of defaults and autoNow, and fills keys that are absent', () => {
    const back = Order.fromPlain({ id: 'o', customer: 'A', createdAt: null, channel: 'shop' });
    expect(back.createdAt).toBeUndefined();
    expect(back.channel).toBe('shop');
    const older = Order.fromPlain({ id: 'o', customer: 'A' });
    expect(older.channel).toBe('web');
  });

  it('needs the identity and still validates types', () => {
    expect(() => Order.fromPlain({ customer: 'A' })).toThrow('Invalid Order: id: is required (identity)');
    expect(() => Order.fromPlain({ id: 'o', customer: 'A', due: 'soon' })).toThrow(ValidationError);
  });

  it('ignores unknown keys (messages from newer producers)', () => {
    expect(Placed.fromPlain({ orderId: 'o', extra: 1 }).toPlain()).toEqual({ orderId: 'o', at: null });
  });

  it('restores message metadata', () => {
    const order = Order.create({ customer: 'Ann' });
    const raised = order.raise(Placed.create({ orderId: order.id, at: new Date('2024-01-01T00:00:00Z') }));
    const received = Placed.fromPlain(JSON.parse(JSON.stringify(raised)), { metadata: raised._metadata });
    expect(received._metadata).toEqual(raised._metadata);
    expect(received.at!.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(received.equals(raised)).toBe(true);
  });
});
