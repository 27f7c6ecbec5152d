/** The model the tracing benchmark drives: one command whose handler saves an order that raises one event. */
import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, Domain, field, handle } from '@protean-ts/core';

export const tracingDomain = new Domain('TraceBench', { root: import.meta.url });

@tracingDomain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.decimal() total?: number;
}

@tracingDomain.event({ partOf: Order })
export class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string() customer?: string;
}

@tracingDomain.command({ partOf: Order })
export class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

@tracingDomain.commandHandler({ partOf: Order })
export class OrderCommands extends BaseCommandHandler {
  @handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {
    const order = Order.create({ customer: command.customer, total: 12.5 });
    order.raise(OrderPlaced.create({ orderId: order.id, customer: order.customer }));
    await tracingDomain.repositoryFor(Order).add(order);
  }
}
