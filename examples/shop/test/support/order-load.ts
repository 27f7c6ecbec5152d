/**
 * The load the end-to-end test and the benchmark put on the shop: a catalogue, and orders
 * whose outcome is known in advance (paid, declined by the gateway, or racing for the last unit
 * of a product), sent as asynchronous PlaceOrder commands.
 */
import { randomUUID } from 'node:crypto';
import { Address, DECLINED_CARD, domain, LineItem, Money, PlaceOrder, ReceiveStock } from '../../src/domain.js';

export const PLENTIFUL_SKUS = Array.from({ length: 40 }, (_, i) => `SKU-${String(i).padStart(2, '0')}`);
export const PLENTY = 1_000_000;
/** One unit only: of all the orders wanting it, exactly one may get it. */
export const LAST_ONE = 'LAST-ONE';
export const UNIT_PRICE = 7.5;

export type ExpectedOutcome = 'paid' | 'declined' | 'wants-last-one';

export interface PlannedOrder {
  orderId: string;
  customerId: string;
  items: { sku: string; quantity: number }[];
  paymentMethod: string;
  expected: ExpectedOutcome;
}

/** Receives the catalogue: PLENTY of every plentiful SKU, and one LAST_ONE. */
export async function seedCatalogue(): Promise<void> {
  const price = Money.of(UNIT_PRICE);
  for (const sku of PLENTIFUL_SKUS) {
    await domain.process(ReceiveStock.create({ deliveryId: `seed-${sku}`, sku, quantity: PLENTY, name: `Product ${sku}`, price }));
  }
  await domain.process(ReceiveStock.create({ deliveryId: `seed-${LAST_ONE}`, sku: LAST_ONE, quantity: 1, name: 'The last one', price }));
}

/**
 * `count` orders of one to three lines. With `mix`, every 10th is paid with a card the gateway
 * declines and every 25th (paid with a good card) also wants the LAST_ONE; without it every
 * order is paid, which makes every order's path the same length (for latency figures).
 */
export function planOrders(count: number, options: { mix: boolean }): PlannedOrder[] {
  return Array.from({ length: count }, (_, i) => {
    const lines = 1 + (i % 3);
    const items = Array.from({ length: lines }, (_, l) => ({ sku: PLENTIFUL_SKUS[(i * 7 + l * 13) % PLENTIFUL_SKUS.length]!, quantity: 1 + ((i + l) % 3) }));
    let expected: ExpectedOutcome = 'paid';
    if (options.mix && i % 25 === 0) {
      expected = 'wants-last-one';
      items.push({ sku: LAST_ONE, quantity: 1 });
    } else if (options.mix && i % 10 === 5) {
      expected = 'declined';
    }
    return { orderId: randomUUID(), customerId: `customer-${i % 500}`, items, paymentMethod: expected === 'declined' ? DECLINED_CARD : 'card-visa', expected };
  });
}

const address = (): Address => Address.create({ street: 'Korenmarkt 1', city: 'Ghent', postalCode: '9000', country: 'BE' });

/** Commits one PlaceOrder to the outbox (asynchronous processing) and resolves when it is committed. */
export async function sendPlaceOrder(order: PlannedOrder): Promise<void> {
  const items = order.items.map((item) => LineItem.create({ ...item, unitPrice: Money.of(UNIT_PRICE) }));
  const command = PlaceOrder.create({ orderId: order.orderId, customerId: order.customerId, items, shippingAddress: address(), paymentMethod: order.paymentMethod });
  await domain.process(command, { asynchronous: true });
}

export interface SendOptions {
  /** Commands in flight at once. */
  concurrency: number;
  /** Commands per second at most; unlimited when absent. */
  ratePerSecond?: number;
  /** Called after each commit, with its time (ms since epoch). */
  onCommitted?: (order: PlannedOrder, committedAt: number, index: number) => void;
}

/** Sends every order, `concurrency` at a time and at most `ratePerSecond`; resolves when all are committed. */
export async function sendOrders(orders: readonly PlannedOrder[], options: SendOptions): Promise<void> {
  const started = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < orders.length) {
      const index = next++;
      if (options.ratePerSecond) {
        const due = started + (index * 1000) / options.ratePerSecond;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      }
      await sendPlaceOrder(orders[index]!);
      options.onCommitted?.(orders[index]!, Date.now(), index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, orders.length) }, lane));
}
