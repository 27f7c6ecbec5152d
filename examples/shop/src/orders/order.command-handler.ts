/**
 * Handles the commands of the Order aggregate: PlaceOrder from checkout, and the steps
 * OrderFulfilment drives it through. The status field's transitions refuse a step out of turn.
 */
import { BaseCommandHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { CancelOrder } from './cancel-order.command.js';
import { ConfirmOrder } from './confirm-order.command.js';
import { MarkOrderPaid } from './mark-order-paid.command.js';
import { Order } from './order.js';
import { PlaceOrder } from './place-order.command.js';

@domain.commandHandler({ partOf: Order })
export class OrderCommands extends BaseCommandHandler {
  @handle(PlaceOrder)
  async placeOrder(command: PlaceOrder): Promise<string> {
    const order = Order.place({
      orderId: command.orderId,
      customerId: command.customerId,
      items: command.items,
      shippingAddress: command.shippingAddress,
      paymentMethod: command.paymentMethod,
    });
    await domain.repositoryFor(Order).add(order);
    return order.id;
  }

  @handle(ConfirmOrder)
  async confirm(command: ConfirmOrder): Promise<void> {
    await change(command.orderId, (order) => order.confirm());
  }

  @handle(MarkOrderPaid)
  async markPaid(command: MarkOrderPaid): Promise<void> {
    await change(command.orderId, (order) => order.markPaid(command.paymentReference));
  }

  @handle(CancelOrder)
  async cancel(command: CancelOrder): Promise<void> {
    await change(command.orderId, (order) => order.cancel(command.reason));
  }
}

async function change(orderId: string, step: (order: Order) => void): Promise<void> {
  const orders = domain.repositoryFor(Order);
  const order = await orders.get(orderId);
  step(order);
  await orders.add(order);
}
