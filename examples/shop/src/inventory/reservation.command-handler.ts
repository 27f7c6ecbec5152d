/**
 * Inventory's side of an order, driven by OrderFulfilment's commands: hold stock for an order,
 * give it back when the order is cancelled. Both commands of one order travel on the order's
 * command stream, in the order they were sent, so the release always finds the reservation.
 */
import { BaseCommandHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Reservation } from './reservation.js';
import { ReleaseStock } from './release-stock.command.js';
import { ReserveStock } from './reserve-stock.command.js';
import { StockItem } from './stock-item.js';
import { allocateStock } from './stock-allocation.js';

@domain.commandHandler({ partOf: Reservation })
export class ReservationCommands extends BaseCommandHandler {
  @handle(ReserveStock)
  async reserveStock(command: ReserveStock): Promise<void> {
    const stock = await loadStock(command.items.map((item) => item.sku));
    const reservation = allocateStock(command.orderId, command.items, stock);
    if (reservation.status === 'RESERVED') await saveStock(stock);
    await domain.repositoryFor(Reservation).add(reservation);
  }

  @handle(ReleaseStock)
  async releaseStock(command: ReleaseStock): Promise<void> {
    const reservations = domain.repositoryFor(Reservation);
    const reservation = await reservations.get(command.orderId);
    // A rejected reservation holds nothing; a released one gave its stock back already.
    if (reservation.status !== 'RESERVED') return;
    const stock = await loadStock(reservation.items.map((item) => item.sku));
    for (const { sku, quantity } of reservation.items) stock.get(sku)!.release(command.orderId, quantity);
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
