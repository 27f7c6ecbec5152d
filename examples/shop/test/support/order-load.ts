/**
 * The load the end-to-end test and the benchmark put on the shop: a catalogue, and orders
 * whose outcome is known in advance (paid, declined by the gateway, never answered by it and so
 * cancelled by the payment timeout, or racing for the last unit of a product), sent as
 * asynchronous PlaceOrder commands.
 */
import { randomUUID } from 'node:crypto';
import { Address, DECLINED_CARD, domain, LineItem, Money, PlaceOrder, ReceiveStock, SILENT_CARD } from '../../src/domain.js';

export const PLENTY = 1_000_000;
/** One unit only: of all the orders wanting it, exactly one may get it. */
export const LAST_ONE = 'LAST-ONE';
export const UNIT_PRICE = 7.5;

export type ExpectedOutcome = 'paid' | 'declined' | 'timed-out' | 'wants-last-one';

export interface PlannedOrder {
  orderId: string;
  customerId: string;
  items: { sku: string; quantity: number }[];
  paymentMethod: string;
  expected: ExpectedOutcome;
}

/** `size` SKUs of which there is PLENTY. */
export function plentifulSkus(size: number): string[] {
  return Array.from({ length: size }, (_, i) => `SKU-${String(i).padStart(3, '0')}`);
}

/** Receives the catalogue: PLENTY of every plentiful SKU, and one LAST_ONE. */
export async function seedCatalogue(skus: readonly string[]): Promise<void> {
  const price = Money.of(UNIT_PRICE);
  for (const sku of skus) {
    await domain.process(ReceiveStock.create({ deliveryId: `seed-${sku}`, sku, quantity: PLENTY, name: `Product ${sku}`, price }));
  }
  await domain.process(ReceiveStock.create({ deliveryId: `seed-${LAST_ONE}`, sku: LAST_ONE, quantity: 1, name: 'The last one', price }));
}

export interface PlanOptions {
  /** The plentiful SKUs orders pick from. */
  skus: readonly string[];
  /** Lines per order: 1 to `maxLines` (SKUs spread so that lines of one order differ). */
  maxLines: number;
  /**
   * Every 10th order paid with a card the gateway declines, every 20th with a card it never
   * answers (cancelled by the payment timeout), every 25th (with a good card) also wanting the
   * LAST_ONE. Without it every order is paid, so every order's path has the same length (for
   * latency figures).
   */
  mix: boolean;
}

export function planOrders(count: number, options: PlanOptions): PlannedOrder[] {
  const { skus, maxLines } = options;
  return Array.from({ length: count }, (_, i) => {
    const lines = 1 + (i % maxLines);
    const items = Array.from({ length: lines }, (_, l) => ({ sku: skus[(i + l * 13) % skus.length]!, quantity: 1 + ((i + l) % 3) }));
    let expected: ExpectedOutcome = 'paid';
    if (options.mix && i % 25 === 0) {
      expected = 'wants-last-one';
      items.push({ sku: LAST_ONE, quantity: 1 });
    } else if (options.mix && i % 10 === 5) {
      expected = 'declined';
    } else if (options.mix && i % 20 === 7) {
      expected = 'timed-out';
    }
    const paymentMethod = expected === 'declined' ? DECLINED_CARD : expected === 'timed-out' ? SILENT_CARD : 'card-visa';
    return { orderId: randomUUID(), customerId: `customer-${i % 500}`, items, paymentMethod, expected };
  });
}

const address = (): Address => Address.create({ street: 'Korenmarkt 1', city: 'Ghent', postalCode: '9000', country: 'BE' });

/**
 * Sends one PlaceOrder. Asynchronously (the default) it is committed to the outbox for the
 * server; otherwise it is handled in this process, with whatever event processing is configured.
 */
export async function sendPlaceOrder(order: PlannedOrder, asynchronous = true): Promise<void> {
  const items = order.items.map((item) => LineItem.create({ ...item, unitPrice: Money.of(UNIT_PRICE) }));
  const command = PlaceOrder.create({
    orderId: order.orderId,
    customerId: order.customerId,
    items,
    shippingAddress: address(),
    paymentMethod: order.paymentMethod,
  });
  await domain.process(command, { asynchronous });
}

export interface SendOptions {
  /** Commands in flight at once. */
  concurrency: number;
  /** Commands per second at most; unlimited when absent. */
  ratePerSecond?: number;
  /** Default true: through the outbox. */
  asynchronous?: boolean;
  /** Called after each command is processed, with its index in `orders`. */
  onSent?: (order: PlannedOrder, index: number) => void;
  /**
   * Closed loop: before each order, wait while more than `limit` orders sent are not yet settled
   * (`settled()` counts the settled ones). The backlog stays bounded, so does each order's latency.
   */
  inFlight?: { limit: number; settled: () => Promise<number> };
}

/** When each order's command was sent and when `domain.process` returned (ms since epoch). */
export type SendTimes = Map<string, { sentAt: number; processedAt: number }>;

/** Sends every order, `concurrency` at a time and at most `ratePerSecond`; resolves when all are processed. */
export async function sendOrders(orders: readonly PlannedOrder[], options: SendOptions): Promise<SendTimes> {
  const times: SendTimes = new Map();
  const started = Date.now();
  let next = 0;
  let settled = 0;
  let reading: Promise<void> | null = null;
  // One read of the settled count at a time, shared by every lane waiting for it.
  const readSettled = () =>
    (reading ??= options.inFlight!.settled().then((count) => {
      settled = count;
      reading = null;
    }));
  const lane = async () => {
    while (next < orders.length) {
      const index = next++;
      const order = orders[index]!;
      while (options.inFlight && index - settled > options.inFlight.limit) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await readSettled();
      }
      if (options.ratePerSecond) {
        const due = started + (index * 1000) / options.ratePerSecond;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      }
      const sentAt = Date.now();
      await sendPlaceOrder(order, options.asynchronous ?? true);
      times.set(order.orderId, { sentAt, processedAt: Date.now() });
      options.onSent?.(order, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, orders.length) }, lane));
  return times;
}
