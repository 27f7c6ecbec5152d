/**
 * Inventory's side of an order, driven by the Order stream: hold stock when an order is
 * placed, give it back when the order is cancelled. Each message may arrive more than once, so
 * both steps first look at the order's Reservation and do nothing when the step is done.
 */
import { BaseEventHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderCancelled, OrderPlaced } from '../orders/order.js';
import { Reservation } from './reservation.js';
import { StockItem } from './stock-item.js';
import { allocateStock, quantitiesBySku } from './stock-allocation.js';

@domain.eventHandler({ streamCategory: Order })
export class StockReservations extends BaseEventHandler {
  @handle(OrderPlaced)
  async reserveStock(event: OrderPlaced): Promise<void> {
    const reservations = domain.repositoryFor(Reservation);
    if (await reservations.find(event.orderId)) return;
    const wanted = quantitiesBySku(event.items);
    const stock = await loadStock(wanted.map((item) => item.sku));
    const reservation = allocateStock(event.orderId, wanted, stock);
    if (reservation.status === 'RESERVED') await saveStock(stock);
    // Two deliveries racing each other both get here; the reservation's id is the order's id,
    // so the second insert fails, its unit of work rolls back (stock included), and its retry returns above.
    await reservations.add(reservation);
  }

  @handle(OrderCancelled)
  async releaseStock(event: OrderCancelled): Promise<void> {
    const reservations = domain.repositoryFor(Reservation);
    const reservation = await reservations.find(event.orderId);
    // REJECTED holds nothing; RELEASED was given back by an earlier delivery of this event.
    if (reservation?.status !== 'RESERVED') return;
    const stock = await loadStock(reservation.items.map((item) => item.sku));
    for (const { sku, quantity } of reservation.items) stock.get(sku)!.release(quantity);
    await saveStock(stock);
    reservation.release();
    await reservations.add(reservation);
  }
}

async function loadStock(skus: readonly string[]): Promise<Map<string, StockItem | undefined>> {
  const repository = domain.repositoryFor(StockItem);
  const items = await Promise.all(skus.map((sku) => repository.find(sku)));
  return new Map(skus.map((sku, i) => [sku, items[i]]));
}

/**
 * Saves in SKU order: two orders sharing SKUs then lock the rows in the same order and cannot
 * deadlock. When another order changed an item first, the save fails on its version and the
 * whole unit of work is retried with fresh stock.
 */
async function saveStock(stock: ReadonlyMap<string, StockItem | undefined>): Promise<void> {
  const repository = domain.repositoryFor(StockItem);
  for (const sku of [...stock.keys()].sort()) await repository.add(stock.get(sku)!);
}
