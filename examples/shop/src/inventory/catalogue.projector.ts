/**
 * Keeps the catalogue from the StockItem stream: a product's first event lists it, each
 * delivery adds its units. The server hands this projector each stock item's events once and
 * in order (per-key order and the inbox), so it only adds. Reservations do not change the
 * catalogue; their events pass by unhandled.
 */
import { BaseEventHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { CatalogueEntry } from './catalogue-entry.js';
import { ProductCatalogued, StockItem, StockReceived } from './stock-item.js';

@domain.eventHandler({ streamCategory: StockItem })
export class CatalogueProjector extends BaseEventHandler {
  @handle(ProductCatalogued)
  async listed(event: ProductCatalogued): Promise<void> {
    await domain.repositoryFor(CatalogueEntry).add(CatalogueEntry.create({ sku: event.sku, name: event.name, price: event.price, unitsReceived: 0 }));
  }

  /** Stored v1 events arrive here as v2, upcast by StockReceivedV1ToV2. */
  @handle(StockReceived)
  async received(event: StockReceived): Promise<void> {
    const entries = domain.repositoryFor(CatalogueEntry);
    const entry = await entries.get(event.sku);
    entry.unitsReceived += event.quantity;
    entry.onHandAfterLastDelivery = event.onHandAfter;
    await entries.add(entry);
  }
}
