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
  /** Orders sent and not yet settled, at most (SHOP_IN_FLIGHT: 200 in both tiers). */
  inFlight: number;
  /** The unanswered orders' payment timeout, in seconds (SHOP_PAYMENT_TIMEOUT_S: 60 fast, 90 load). */
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
    inFlight: integer('SHOP_IN_FLIGHT', 200, 1),
    paymentTimeoutS: integer('SHOP_PAYMENT_TIMEOUT_S', tier === 'fast' ? 60 : 90, 5),
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
