/**
 * Inventory's side of an order, driven by the Order stream: hold stock when an order is
 * placed, give it back when the order is cancelled. The server hands over each event once and
 * in the order's order, so the release always finds the reservation the placement made.
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
    const wanted = quantitiesBySku(event.items);
    const stock = await loadStock(wanted.map((item) => item.sku));
    const reservation = allocateStock(event.orderId, wanted, stock);
    if (reservation.status === 'RESERVED') await saveStock(stock);
    await domain.repositoryFor(Reservation).add(reservation);
  }

  @handle(OrderCancelled)
  async releaseStock(event: OrderCancelled): Promise<void> {
    const reservations = domain.repositoryFor(Reservation);
    const reservation = await reservations.get(event.orderId);
    // An order cancelled for want of stock holds nothing.
    if (reservation.status === 'REJECTED') return;
    const stock = await loadStock(reservation.items.map((item) => item.sku));
    for (const { sku, quantity } of reservation.items) stock.get(sku)!.release(event.orderId, quantity);
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
 * Saves in SKU order: two orders sharing SKUs then lock the stock items' streams in the same
 * order and cannot deadlock. When another order appended to an item first, the append fails on
 * its expected version and the framework runs the handler again with fresh stock.
 */
async function saveStock(stock: ReadonlyMap<string, StockItem | undefined>): Promise<void> {
  const repository = domain.repositoryFor(StockItem);
  for (const sku of [...stock.keys()].sort()) await repository.add(stock.get(sku)!);
}
