/** Inventory: stock per SKU, reservations per order, and deliveries from the warehouse. */
export { StockItem, StockReceived } from './stock-item.js';
export { ReservedItem } from './reserved-item.js';
export { Reservation, StockReserved, ReservationFailed, StockReleased, type ReservationStatus } from './reservation.js';
export { GoodsReceipt } from './goods-receipt.js';
export { ReceiveStock } from './receive-stock.command.js';
export { InventoryCommands } from './inventory.command-handler.js';
export { allocateStock, quantitiesBySku } from './stock-allocation.js';
export { StockReservations } from './stock-reservation.event-handler.js';
export { WarehouseDeliveries, WAREHOUSE_DELIVERIES_STREAM } from './warehouse-deliveries.subscriber.js';
