/**
 * An order-fulfilment process for the process-manager tests: an order is placed, its payment
 * confirms it, or a payment timeout cancels it. `makeFulfilment()` builds fresh classes per call.
 */
import { BaseAggregate, BaseCommand, BaseEvent, BaseProcessManager, Domain, field, handle } from '../../src/index.js';

export interface FulfilmentOptions {
  /** The payment timeout, or one per customer; none when absent. */
  timeoutAfter?: string | number | ((customer: string | undefined) => string | number);
  name?: string;
  domainOptions?: ConstructorParameters<typeof Domain>[1];
}

export function makeFulfilment(options: FulfilmentOptions = {}) {
  const domain = new Domain(options.name ?? 'Fulfil', options.domainOptions);
  const calls: string[] = [];

  @domain.aggregate()
  class Order extends BaseAggregate {
    @field.string() customer?: string;

    place(): void {
      this.raise(OrderPlaced.create({ orderId: this.id, customer: this.customer }));
    }

    note(text: string): void {
      this.raise(OrderNoted.create({ orderId: this.id, text }));
    }
  }

  @domain.aggregate()
  class Payment extends BaseAggregate {
    @field.string() forOrder?: string;

    receive(): void {
      this.raise(PaymentReceived.create({ paymentId: this.id, paidOrder: this.forOrder }));
    }
  }

  @domain.event({ partOf: Order })
  class OrderPlaced extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
    @field.string() customer?: string;
  }

  @domain.event({ partOf: Order })
  class OrderNoted extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
    @field.string() text?: string;
  }

  @domain.event({ partOf: Payment })
  class PaymentReceived extends BaseEvent {
    @field.identifier({ required: true }) paymentId!: string;
    @field.string() paidOrder?: string;
  }

  @domain.event({ partOf: Order })
  class PaymentTimedOut extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
  }

  @domain.command({ partOf: Order })
  class ConfirmOrder extends BaseCommand {
    @field.identifier({ required: true }) orderId!: string;
  }

  @domain.command({ partOf: Order })
  class CancelOrder extends BaseCommand {
    @field.identifier({ required: true }) orderId!: string;
  }

  @domain.processManager({ aggregates: [Order, Payment] })
  class Fulfilment extends BaseProcessManager {
    orderId?: string;
    customer?: string;
    notes: string[] = [];
    paid = false;

    @handle(OrderPlaced, { start: true, correlate: 'orderId' })
    placed(event: OrderPlaced): void {
      calls.push(`placed ${event.orderId}`);
      this.customer = event.customer;
      const after = typeof options.timeoutAfter === 'function' ? options.timeoutAfter(event.customer) : options.timeoutAfter;
      if (after !== undefined) this.scheduleTimeout(PaymentTimedOut.create({ orderId: event.orderId }), { after });
    }

    @handle(OrderNoted, { correlate: 'orderId' })
    noted(event: OrderNoted): void {
      calls.push(`noted ${event.orderId}`);
      this.notes.push(event.text ?? '');
    }

    @handle(PaymentReceived, { correlate: { paidOrder: 'orderId' } })
    paymentReceived(event: PaymentReceived): void {
      calls.push(`paid ${event.paidOrder}`);
      this.paid = true;
      this.send(ConfirmOrder.create({ orderId: this.orderId! }));
      this.markAsComplete();
    }

    @handle(PaymentTimedOut, { correlate: 'orderId', end: true })
    timedOut(event: PaymentTimedOut): void {
      calls.push(`timed out ${event.orderId}`);
      this.send(CancelOrder.create({ orderId: this.orderId! }));
    }
  }

  return { domain, calls, Order, Payment, OrderPlaced, OrderNoted, PaymentReceived, PaymentTimedOut, ConfirmOrder, CancelOrder, Fulfilment };
}

export type Fulfil = ReturnType<typeof makeFulfilment>;
