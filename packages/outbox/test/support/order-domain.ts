/** A one-aggregate domain for the end-to-end outbox tests; a fresh Domain per call. */
import { BaseAggregate, BaseEvent, Domain, field } from '@protean-ts/core';

export function makeOrderDomain() {
  const domain = new Domain('Shop');

  @domain.aggregate()
  class Order extends BaseAggregate {
    @field.string({ required: true }) customer!: string;

    place(): void {
      this.raise(OrderPlaced.create({ orderId: this.id }));
    }

    note(text: string): void {
      this.raise(OrderNoted.create({ orderId: this.id, text }));
    }
  }

  @domain.event({ partOf: Order, published: true })
  class OrderPlaced extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
  }

  @domain.event({ partOf: Order })
  class OrderNoted extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
    @field.string() text?: string;
  }

  return { domain, Order, OrderPlaced, OrderNoted };
}
