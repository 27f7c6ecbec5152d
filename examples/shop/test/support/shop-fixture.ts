/**
 * Given/when/then helpers for the shop's unit tests, on the embedded default (memory database,
 * in-process broker). `openShop()` initialises the domain afresh, so every test starts empty.
 */
import { randomUUID } from 'node:crypto';
import { configureLogging, type ConfigOverrides, type LogRecord, type MessageEnvelope } from '@protean-ts/core';
import { Address, Checkout, domain, Money, Order, OrderTimeline, ReceiveStock, Reservation, StockItem, type TimelineStep } from '../../src/domain.js';

/**
 * Errors the framework logged since `openShop`. With sync processing a failing event handler
 * is logged and the commit stands, so a test checks this list is empty, or the failure would
 * only show up as a missing effect.
 */
export const loggedErrors: LogRecord[] = [];

export async function openShop(config?: ConfigOverrides): Promise<void> {
  await domain.close();
  loggedErrors.length = 0;
  configureLogging({ level: 'warn', sink: (_line, record) => void (record.level === 'error' && loggedErrors.push(record)) });
  await domain.init(config ? { config } : {});
}

export const closeShop = (): Promise<void> => domain.close();

export const anAddress = (): Address => Address.create({ street: 'Korenmarkt 1', city: 'Ghent', postalCode: '9000', country: 'BE' });

/** Given the warehouse received `quantity` of `sku` at `price`. */
export async function givenStock(sku: string, quantity: number, price = 10): Promise<void> {
  await domain.process(ReceiveStock.create({ deliveryId: randomUUID(), sku, quantity, name: `Product ${sku}`, price: Money.of(price) }));
}

/** When a customer checks out `items` (SKU → quantity); returns the order id. */
export async function whenOrdering(items: Record<string, number>, paymentMethod = 'card-visa', customerId = 'ada'): Promise<string> {
  const cart = Object.entries(items).map(([sku, quantity]) => ({ sku, quantity }));
  return new Checkout().placeOrder({ customerId, items: cart, shippingAddress: anAddress(), paymentMethod });
}

export const orderOf = (orderId: string): Promise<Order> => domain.repositoryFor(Order).get(orderId);

export async function timelineOf(orderId: string): Promise<TimelineStep[]> {
  const timeline = await domain.repositoryFor(OrderTimeline).find(orderId);
  return timeline?.steps() ?? [];
}

export const reservationOf = (orderId: string): Promise<Reservation | undefined> => domain.repositoryFor(Reservation).find(orderId);

export async function stockOf(sku: string): Promise<{ onHand: number; reserved: number }> {
  const item = await domain.repositoryFor(StockItem).get(sku);
  return { onHand: item.onHand, reserved: item.reserved };
}

/** Every message committed so far (events and asynchronous commands), oldest first, as delivered to handlers. */
export async function committedMessages(): Promise<MessageEnvelope[]> {
  const rows = await domain.providers.get('default')!.outbox.list({ limit: 100_000 });
  return rows.map((row) => row.envelope);
}
