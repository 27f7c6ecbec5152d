/**
 * How big the consumer-guarantees scenario runs, and on which brokers: every size it reads from the
 * environment is read here. The load tier's defaults are the sizes the per-broker copies of the
 * scenario ran at before they became one; the fast tier's still cross three workers and kill one.
 */
export type Tier = 'fast' | 'load';
export type GuaranteesBroker = 'redis' | 'nats' | 'rabbitmq';

const BROKERS: readonly GuaranteesBroker[] = ['redis', 'nats', 'rabbitmq'];

/** Events of each key go into the outbox PER_COMMIT at a time (one aggregate save each). */
export const PER_COMMIT = 20;

/** Keys (counters) and events per key of the load tier, per broker. */
const LOAD_SIZE: Record<GuaranteesBroker, { keys: number; perKey: number }> = {
  redis: { keys: 50, perKey: 400 },
  nats: { keys: 50, perKey: 200 },
  rabbitmq: { keys: 30, perKey: 200 },
};
/** Events per key of the fast tier: two commits per key, enough for a quarter of the effects to land before the kill. */
const FAST_PER_KEY = 40;

/** GUARANTEES_BROKERS (comma-separated), default every broker the scenario knows. */
export function guaranteesBrokers(): GuaranteesBroker[] {
  const raw = process.env.GUARANTEES_BROKERS;
  if (raw === undefined || raw === '') return [...BROKERS];
  const kinds = raw.split(',').map((kind) => kind.trim());
  if (kinds.some((kind) => !(BROKERS as readonly string[]).includes(kind)))
    throw new Error(`GUARANTEES_BROKERS must list brokers among ${BROKERS.join(', ')}, got ${JSON.stringify(raw)}`);
  return kinds as GuaranteesBroker[];
}

export interface GuaranteesSize {
  keys: number;
  perKey: number;
}

/**
 * Keys: 50 on Redis and NATS, 30 on RabbitMQ. Events per key: GUARANTEES_PER_KEY when set, else 40
 * in the fast tier, and 400 (Redis) or 200 (NATS, RabbitMQ) in the load tier.
 */
export function guaranteesSize(tier: Tier, broker: GuaranteesBroker): GuaranteesSize {
  const { keys, perKey } = LOAD_SIZE[broker];
  const raw = process.env.GUARANTEES_PER_KEY;
  if (raw === undefined || raw === '') return { keys, perKey: tier === 'fast' ? FAST_PER_KEY : perKey };
  const value = Number(raw);
  // At least one commit per key, and enough for a quarter of the effects to come before the kill.
  if (!Number.isSafeInteger(value) || value < PER_COMMIT) throw new Error(`GUARANTEES_PER_KEY must be an integer >= ${PER_COMMIT}, got ${JSON.stringify(raw)}`);
  return { keys, perKey: value };
}
