/** Moves orders on when inventory answers: confirmed once their stock is held, cancelled when it is not. */
import { BaseEventHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Reservation, ReservationFailed, StockReserved } from '../inventory/reservation.js';
import { Order } from './order.js';

@domain.eventHandler({ streamCategory: Reservation })
export class StockOutcomes extends BaseEventHandler {
  @handle(StockReserved)
  async confirmOrder(event: StockReserved): Promise<void> {
    const orders = domain.repositoryFor(Order);
    const order = await orders.get(event.orderId);
    order.confirm();
    await orders.add(order);
  }

  @handle(ReservationFailed)
  async cancelOrder(event: ReservationFailed): Promise<void> {
    const orders = domain.repositoryFor(Order);
    const order = await orders.get(event.orderId);
    order.cancel(event.reason);
    await orders.add(order);
  }
}
