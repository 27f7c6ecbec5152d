/**
 * The rule for reserving an order's items: all or nothing. Either every SKU has enough units
 * available and each is reserved, or nothing is held and the reservation is rejected with the
 * reason. A domain service: it spans several StockItem aggregates and one Reservation.
 */
import { Reservation } from './reservation.js';
import { ReservedItem } from './reserved-item.js';
import type { StockItem } from './stock-item.js';

/** The wanted quantity per SKU, in SKU order (lines naming one SKU twice are added up). */
export function quantitiesBySku(items: readonly { sku: string; quantity: number }[]): ReservedItem[] {
  const totals = new Map<string, number>();
  for (const { sku, quantity } of items) totals.set(sku, (totals.get(sku) ?? 0) + quantity);
  return [...totals.keys()].sort().map((sku) => ReservedItem.create({ sku, quantity: totals.get(sku)! }));
}

/**
 * Reserves `wanted` from `stock` (the StockItem of each wanted SKU, undefined when unknown) and
 * returns the reservation; the stock items it changed are the ones in `stock`.
 */
export function allocateStock(orderId: string, wanted: readonly ReservedItem[], stock: ReadonlyMap<string, StockItem | undefined>): Reservation {
  const shortages = wanted.flatMap(({ sku, quantity }) => {
    const item = stock.get(sku);
    if (!item) return [`${sku} is not in the catalogue`];
    return item.canReserve(quantity) ? [] : [`${sku}: ${quantity} wanted, ${item.available()} available`];
  });
  if (shortages.length) return Reservation.rejected(orderId, wanted, `out of stock (${shortages.join('; ')})`);
  for (const { sku, quantity } of wanted) stock.get(sku)!.reserve(orderId, quantity);
  return Reservation.reserved(orderId, wanted);
}
