/** Handles the commands of the StockItem aggregate. */
import { BaseCommandHandler, handle, ValidationError } from '@protean-ts/core';
import { domain } from '../shop.js';
import { GoodsReceipt } from './goods-receipt.js';
import { ReceiveStock } from './receive-stock.command.js';
import { StockItem } from './stock-item.js';

@domain.commandHandler({ partOf: StockItem })
export class InventoryCommands extends BaseCommandHandler {
  /** Returns the units on hand afterwards. */
  @handle(ReceiveStock)
  async receiveStock(command: ReceiveStock): Promise<number> {
    const stock = domain.repositoryFor(StockItem);
    const receipts = domain.repositoryFor(GoodsReceipt);
    const known = await stock.find(command.sku);
    if (await receipts.find(command.deliveryId)) return known?.onHand ?? 0;
    const item = known ?? newStockItem(command);
    item.receive(command.quantity);
    await stock.add(item);
    await receipts.add(GoodsReceipt.create({ deliveryId: command.deliveryId, sku: item.sku, quantity: command.quantity }));
    return item.onHand;
  }
}

function newStockItem(command: ReceiveStock): StockItem {
  if (!command.name || !command.price) {
    throw new ValidationError({ sku: [`${command.sku} is a new product: give its name and price`] }, 'ReceiveStock');
  }
  return StockItem.catalogue(command.sku, command.name, command.price);
}
