/** Handles the commands of the Order aggregate. */
import { BaseCommandHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order } from './order.js';
import { PlaceOrder } from './place-order.command.js';

@domain.commandHandler({ partOf: Order })
export class OrderCommands extends BaseCommandHandler {
  @handle(PlaceOrder)
  async placeOrder(command: PlaceOrder): Promise<string> {
    const orders = domain.repositoryFor(Order);
    // Processed asynchronously, a command is delivered at least once: the second delivery finds
    // the order its id names and leaves it alone.
    if (await orders.find(command.orderId)) return command.orderId;
    const order = Order.place({
      orderId: command.orderId,
      customerId: command.customerId,
      items: command.items,
      shippingAddress: command.shippingAddress,
      paymentMethod: command.paymentMethod,
    });
    await orders.add(order);
    return order.id;
  }
}
