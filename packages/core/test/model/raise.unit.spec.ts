import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseEvent, Domain, field, markPersisted, RegistrationError } from '../../src/index.js';

const domain = new Domain('Shop');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];
  place(): OrderPlaced {
    return this.raise(OrderPlaced.create({ orderId: this.id }));
  }
}

@domain.entity({ partOf: Order })
class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  remove(): void {
    this.raise(LineRemoved.create({ sku: this.sku }));
  }
}

@domain.event({ partOf: Order })
class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
}

@domain.event({ partOf: Order, version: 3, published: true })
class LineRemoved extends BaseEvent {
  @field.string() sku?: string;
}

@domain.aggregate({ streamCategory: 'billing::invoice' })
class Invoice extends BaseAggregate {}

@domain.event({ partOf: Invoice })
class InvoiceSent extends BaseEvent {}

describe('raise', () => {
  it('stamps type, stream, sequence and versions', () => {
    const order = Order.create({ customer: 'Ann', id: 'o-1' });
    const before = Date.now();
    const event = order.place();
    const meta = event._metadata!;
    expect(meta.headers.type).toBe('Shop.OrderPlaced.v1');
    expect(meta.headers.stream).toBe('shop::order-o-1');
    expect(meta.headers.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(meta.headers.time)).toBeGreaterThanOrEqual(before - 1);
    expect(meta.envelope).toEqual({ specversion: '1.0' });
    expect(meta.domain).toEqual({
      fqn: 'Shop.OrderPlaced',
      kind: 'EVENT',
      streamCategory: 'shop::order',
      version: 1,
      sequenceId: '0.1',
      expectedVersion: -1,
      correlationId: null,
      causationId: null,
      published: false,
    });
    expect(meta.extensions).toEqual({});
  });

  it('numbers events within a commit and from the stored version', () => {
    const order = Order.create({ customer: 'Ann' });
    order.place();
    order.place();
    expect(order.pendingEvents().map((e) => e._metadata!.domain.sequenceId)).toEqual(['0.1', '0.2']);
    order.clearPendingEvents();
    markPersisted(order, 4);
    order.place();
    expect(order.pendingEvents()[0]!._metadata!.domain).toMatchObject({ sequenceId: '5.1', expectedVersion: 4 });
  });

  it('leaves the created event untouched and keeps a stamped copy', () => {
    const order = Order.create({ customer: 'Ann' });
    const event = OrderPlaced.create({ orderId: order.id });
    const stamped = order.raise(event);
    expect(event._metadata).toBeUndefined();
    expect(stamped).not.toBe(event);
    expect(stamped).toBeInstanceOf(OrderPlaced);
    expect(stamped.orderId).toBe(order.id);
    expect(order.pendingEvents()).toEqual([stamped]);
  });

  it('uses message version, published flag and a custom stream category', () => {
    const order = Order.create({ customer: 'Ann', lines: [{ sku: 'A' }] });
    order.lines![0]!.remove();
    const meta = order.pendingEvents()[0]!._metadata!;
    expect(meta.headers.type).toBe('Shop.LineRemoved.v3');
    expect(meta.domain.published).toBe(true);
    expect(meta.headers.stream).toBe(`shop::order-${order.id}`);

    const invoice = Invoice.create();
    const sent = invoice.raise(InvoiceSent.create());
    expect(sent._metadata!.headers.stream).toBe(`billing::invoice-${invoice.id}`);
  });

  it('lets an entity raise through its aggregate root only', () => {
    const order = Order.create({ customer: 'Ann', lines: [{ sku: 'A' }] });
    order.lines![0]!.remove();
    expect(order.pendingEvents()).toHaveLength(1);
    expect(() => OrderLine.create({ sku: 'loose' }).remove()).toThrow(/OrderLine is not inside an aggregate/);
  });

  it('reads correlation from the runtime context provider', () => {
    domain.registry.setMessageContextProvider(() => ({ correlationId: 'corr-1', causationId: 'cause-1', traceparent: '00-abc-def-01' }));
    try {
      const event = Order.create({ customer: 'Ann' }).place();
      expect(event._metadata!.domain).toMatchObject({ correlationId: 'corr-1', causationId: 'cause-1' });
      expect(event._metadata!.headers.traceparent).toBe('00-abc-def-01');
    } finally {
      domain.registry.setMessageContextProvider(undefined);
    }
  });

  it('refuses events of another aggregate, unregistered events and non-events', () => {
    const order = Order.create({ customer: 'Ann' });
    expect(() => order.raise(InvoiceSent.create())).toThrow('InvoiceSent is part of Invoice, so Order cannot raise it');
    class Stray extends BaseEvent {}
    expect(() => order.raise(Stray.create())).toThrow(RegistrationError);
    expect(() => order.raise({} as OrderPlaced)).toThrow(/takes an event/);
    class Loose extends BaseAggregate {}
    expect(() => Loose.create().raise(OrderPlaced.create({ orderId: 'x' }))).toThrow(/Loose is not registered with a domain/);
  });
});
