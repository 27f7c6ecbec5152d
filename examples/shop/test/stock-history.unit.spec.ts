/** The event-sourced StockItem on the embedded default: the memory event store. */
import { describeStockHistory } from './support/stock-history.js';
import { closeShop, openShop } from './support/shop-fixture.js';

describeStockHistory('memory', { open: () => openShop(), close: closeShop });
