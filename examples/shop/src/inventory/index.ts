/** Inventory: stock per SKU (event-sourced), the catalogue read from it, reservations per order, and deliveries from the warehouse. */
export { StockItem, ProductCatalogued, StockReceived, UnitsReserved, UnitsReleased } from './stock-item.js';
export { StockReceivedV1ToV2, type StockReceivedV1 } from './stock-received.upcaster.js';
export { ReservedItem } from './reserved-item.js';
export { Reservation, StockReserved, ReservationFailed, StockReleased, type ReservationStatus } from './reservation.js';
export { CatalogueEntry } from './catalogue-entry.js';
export { CatalogueProjector } from './catalogue.projector.js';
export { GoodsReceipt } from './goods-receipt.js';
export { ReceiveStock } from './receive-stock.command.js';
export { InventoryCommands } from './inventory.command-handler.js';
export { allocateStock, quantitiesBySku } from './stock-allocation.js';
export { ReserveStock } from './reserve-stock.command.js';
export { ReleaseStock } from './release-stock.command.js';
export { ReservationCommands } from './reservation.command-handler.js';
export { WarehouseDeliveries, WAREHOUSE_DELIVERIES_STREAM } from './warehouse-deliveries.subscriber.js';
