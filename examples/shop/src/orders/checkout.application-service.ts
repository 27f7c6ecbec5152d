/**
 * The storefront's use case "check out a cart": prices each line from the catalogue (the
 * StockItem of its SKU), then places the order. Callers use it directly:
 * `await new Checkout().placeOrder(cart)`.
 */
import { randomUUID } from 'node:crypto';
import { BaseApplicationService, ValidationError } from '@protean-ts/core';
import { domain } from '../shop.js';
import { type Address } from '../shared/address.js';
import { StockItem } from '../inventory/stock-item.js';
import { LineItem } from './line-item.js';
import { Order } from './order.js';
import { PlaceOrder } from './place-order.command.js';

export interface Cart {
  customerId: string;
  items: readonly { sku: string; quantity: number }[];
  shippingAddress: Address;
  paymentMethod: string;
}

@domain.applicationService({ partOf: Order })
export class Checkout extends BaseApplicationService {
  /** Returns the new order's id. Stock is not checked here: inventory decides, and may cancel the order. */
  async placeOrder(cart: Cart): Promise<string> {
    const command = PlaceOrder.create({
      orderId: randomUUID(),
      customerId: cart.customerId,
      items: await priceFromCatalogue(cart.items),
      shippingAddress: cart.shippingAddress,
      paymentMethod: cart.paymentMethod,
    });
    await domain.process(command);
    return command.orderId;
  }
}

async function priceFromCatalogue(items: Cart['items']): Promise<LineItem[]> {
  const catalogue = domain.repositoryFor(StockItem);
  const products = await Promise.all(items.map((item) => catalogue.find(item.sku)));
  const unknown = items.filter((_, i) => !products[i]).map((item) => item.sku);
  if (unknown.length) throw new ValidationError({ items: [`not in the catalogue: ${unknown.join(', ')}`] }, 'Cart');
  return items.map((item, i) => LineItem.create({ sku: item.sku, quantity: item.quantity, unitPrice: products[i]!.price }));
}
