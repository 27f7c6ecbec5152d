/** Handles the commands of the Order aggregate. */
import { BaseCommandHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
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
}
