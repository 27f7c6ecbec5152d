/**
 * The sizes of the shop's production-shape run, read from the environment in this one place.
 * The fast tier runs a smoke size on Redis; the load tier the full size on every broker. A
 * variable, when set, wins in either tier.
 */
import type { ShopBrokerKind } from './shop-broker.js';

export type Tier = 'fast' | 'load';

export interface ProductionRunSize {
  /** Orders sent (SHOP_ORDERS: 300 fast, 5,000 load). */
  orders: number;
  /**
   * Orders sent and not yet settled, at most (SHOP_IN_FLIGHT: 200 fast, 1,000 load). The server
   * settles 8-10 orders a second on two busy cores whatever this is, so it sets how far behind the
   * work runs: at 1,000, in a 5,000-order run on each broker, the outbox's unpublished rows passed
   * 3,000 within two minutes and peaked at 9,352-9,867 (at 200: 355 at most), while a paid order
   * took at most 123-167 s from PlaceOrder to paid.
   */
  inFlight: number;
  /**
   * The unanswered orders' payment timeout, in seconds (SHOP_PAYMENT_TIMEOUT_S: 60 fast, 120
   * load). It must outlast a paid order's wait from ChargePayment to PaymentCaptured, which the
   * run prints: at most 32 s at 300 orders (30 s was too short once: orders the killed worker
   * held), and 37-57 s at 5,000 with 1,000 in flight. It is also most of the wait after the last
   * order.
   */
  paymentTimeoutS: number;
}

function integer(name: string, fallback: number, minimum: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < minimum) throw new Error(`${name} must be an integer >= ${minimum}, got ${JSON.stringify(raw)}`);
  return value;
}

export function productionRunSize(tier: Tier): ProductionRunSize {
  return {
    // 40 at least: the run kills a worker halfway and needs orders of every kind of the mix.
    orders: integer('SHOP_ORDERS', tier === 'fast' ? 300 : 5_000, 40),
    inFlight: integer('SHOP_IN_FLIGHT', tier === 'fast' ? 200 : 1_000, 1),
    paymentTimeoutS: integer('SHOP_PAYMENT_TIMEOUT_S', tier === 'fast' ? 60 : 120, 5),
  };
}

const BROKERS: readonly ShopBrokerKind[] = ['redis', 'rabbitmq', 'nats'];

/** SHOP_BROKERS (comma-separated): `redis` in the fast tier, `redis,rabbitmq,nats` in the load tier. */
export function productionRunBrokers(tier: Tier): ShopBrokerKind[] {
  const raw = process.env.SHOP_BROKERS;
  if (raw === undefined || raw === '') return tier === 'fast' ? ['redis'] : [...BROKERS];
  const kinds = raw.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(BROKERS as readonly string[]).includes(kind));
  if (unknown.length) throw new Error(`SHOP_BROKERS must list brokers among ${BROKERS.join(', ')}, got ${JSON.stringify(raw)}`);
  return kinds as ShopBrokerKind[];
}
