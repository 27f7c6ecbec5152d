/**
 * The broker the production-shape shop runs on, named by the caller (the production-shape run
 * takes it from SHOP_BROKERS) or else by SHOP_BROKER (`redis`, the default, `nats` or `rabbitmq`;
 * bench/e2e sets it): which PROTEAN_ENV overlay of domain.toml the shop uses, a namespace of
 * its own on the shared server (a Redis key prefix, a JetStream stream prefix, a RabbitMQ virtual
 * host), raw writes for systems outside the domain, and the backlog left at the end.
 */
import type { ServiceCheck } from '@protean-ts/conformance';
import { NATS, RABBITMQ, REDIS } from '@protean-ts/conformance';
import { createNatsNamespace, NATS_SERVER } from './nats-namespace.js';
import { createRabbitmqNamespace } from './rabbitmq-namespace.js';
import { createRedisNamespace, REDIS_SERVER, type RedisNamespace } from './redis-namespace.js';
import { readStreamBacklog, type StreamBacklog } from './stream-backlog.js';

const KINDS = ['redis', 'nats', 'rabbitmq'] as const;
export type ShopBrokerKind = (typeof KINDS)[number];

export interface ShopBroker {
  kind: ShopBrokerKind;
  /** PROTEAN_ENV and the broker's ${VAR}s for every `protean-ts` command of the shop. */
  env: Record<string, string>;
  publishRaw(stream: string, payload: string): Promise<void>;
  /**
   * Unfinished groups and dead letters. `groups` (`<stream>/<group>`) are the ones to look at
   * where the broker cannot list its groups (RabbitMQ without its management plugin).
   */
  backlog(groups: readonly string[]): Promise<StreamBacklog>;
  drop(): Promise<void>;
  /** The Redis namespace itself when the kind is `redis`, for tests that look at Redis directly. */
  redis?: RedisNamespace;
}

export function shopBrokerKind(): ShopBrokerKind {
  const kind = process.env.SHOP_BROKER ?? 'redis';
  if (!(KINDS as readonly string[]).includes(kind)) throw new Error(`SHOP_BROKER must be one of ${KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  return kind as ShopBrokerKind;
}

export function shopBrokerService(kind: ShopBrokerKind = shopBrokerKind()): ServiceCheck {
  return { redis: REDIS, nats: NATS, rabbitmq: RABBITMQ }[kind];
}

export async function createShopBroker(kind: ShopBrokerKind = shopBrokerKind()): Promise<ShopBroker> {
  if (kind === 'nats') {
    const nats = await createNatsNamespace();
    return {
      kind,
      env: { PROTEAN_ENV: 'nats', NATS_URL: NATS_SERVER, NATS_STREAM_PREFIX: nats.prefix },
      publishRaw: (stream, payload) => nats.publishRaw(stream, payload),
      backlog: () => nats.backlog(),
      drop: () => nats.drop(),
    };
  }
  if (kind === 'rabbitmq') {
    const rabbit = await createRabbitmqNamespace('shop');
    return {
      kind,
      env: { PROTEAN_ENV: 'rabbitmq', RABBITMQ_URL: rabbit.uri },
      publishRaw: (stream, payload) => rabbit.publishRaw(stream, payload),
      backlog: (groups) => rabbit.backlog(groups),
      drop: () => rabbit.drop(),
    };
  }
  const redis = await createRedisNamespace();
  return {
    kind,
    env: { PROTEAN_ENV: 'production', REDIS_URL: REDIS_SERVER, REDIS_STREAM_PREFIX: redis.prefix },
    publishRaw: async (stream, payload) => {
      await redis.client.xadd(`${redis.prefix}${stream}`, '*', 'envelope', payload);
    },
    backlog: () => readStreamBacklog(redis),
    drop: () => redis.drop(),
    redis,
  };
}
