/**
 * Given/when/then helpers for the shop's unit tests, on the embedded default (memory database,
 * in-process broker). `openShop()` initialises the domain afresh, so every test starts empty, and
 * starts the server's Engine in this process (src/embedded-server.ts): events are handled
 * asynchronously, so `givenStock` and `whenOrdering` return once the flow has run its course.
 */
import { randomUUID } from 'node:crypto';
import { configureLogging, type ConfigOverrides, type LogRecord, type MessageEnvelope } from '@protean-ts/core';
import { Address, Checkout, domain, Money, Order, OrderTimeline, ReceiveStock, Reservation, StockItem, type TimelineStep } from '../../src/domain.js';
import { EmbeddedServer } from '../../src/embedded-server.js';

/**
 * Errors the framework logged since `openShop`. A failing handler is logged (and retried, then
 * dead-lettered) while the flow goes on without it, so a test checks this list is empty, or the
 * failure would only show up as a missing effect.
 */
export const loggedErrors: LogRecord[] = [];

let server: EmbeddedServer | null = null;

export interface OpenOptions {
  /** Default true: run the Engine. Without it events stay in the outbox for the test to deliver. */
  server?: boolean;
  /** Runs after domain.init() and before the Engine starts (create tables, say). */
  beforeServer?: () => Promise<void>;
}

export async function openShop(config?: ConfigOverrides, options: OpenOptions = {}): Promise<void> {
  await closeShop();
  loggedErrors.length = 0;
  configureLogging({ level: 'warn', sink: (_line, record) => void (record.level === 'error' && loggedErrors.push(record)) });
  await domain.init(config ? { config } : {});
  await options.beforeServer?.();
  if (options.server ?? true) server = await EmbeddedServer.start(domain);
}

/**
 * Lets the server finish what is in flight first: the in-process broker goes with it, and on a
 * database kept for the next test (PostgreSQL) a message published but not yet handled would
 * leave a gap in its key's sequence that the next test's subscription waits out.
 */
export async function closeShop(): Promise<void> {
  try {
    await server?.drained();
  } finally {
    await server?.stop();
    server = null;
    await domain.close();
  }
}

function runningServer(): EmbeddedServer {
  if (!server) throw new Error('the shop was opened without its server (openShop(config, { server: false })): deliver messages with domain.handleMessage');
  return server;
}

/** Waits until every message so far was handled (payment timeouts still waiting excepted). */
export const allHandled = (): Promise<void> => runningServer().drained();

export const anAddress = (): Address => Address.create({ street: 'Korenmarkt 1', city: 'Ghent', postalCode: '9000', country: 'BE' });

/** Given the warehouse received `quantity` of `sku` at `price`. */
export async function givenStock(sku: string, quantity: number, price = 10): Promise<void> {
  await domain.process(ReceiveStock.create({ deliveryId: randomUUID(), sku, quantity, name: `Product ${sku}`, price: Money.of(price) }));
  if (server) await server.drained();
}

/**
 * When a customer checks out `items` (SKU → quantity); returns the order id once the order is
 * settled (with the server running), or once placed (without it).
 */
export async function whenOrdering(items: Record<string, number>, paymentMethod = 'card-visa', customerId = 'ada'): Promise<string> {
  const cart = Object.entries(items).map(([sku, quantity]) => ({ sku, quantity }));
  const orderId = await new Checkout().placeOrder({ customerId, items: cart, shippingAddress: anAddress(), paymentMethod });
  if (server) await server.settled(domain, orderId);
  return orderId;
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
