/**
 * The broker the production-shape e2e runs on, chosen by SHOP_BROKER (`redis`, the default, or
 * `nats`): which PROTEAN_ENV overlay of domain.toml the shop uses, a namespace of its own on the
 * shared server, raw writes for systems outside the domain, and the backlog left at the end.
 */
import type { ServiceCheck } from '@protean-ts/core/testing';
import { NATS, REDIS } from '@protean-ts/core/testing';
import { createNatsNamespace, NATS_SERVER } from './nats-namespace.js';
import { createRedisNamespace, REDIS_SERVER, type RedisNamespace } from './redis-namespace.js';
import { readStreamBacklog, type StreamBacklog } from './stream-backlog.js';

export type ShopBrokerKind = 'redis' | 'nats';

export interface ShopBroker {
  kind: ShopBrokerKind;
  /** PROTEAN_ENV and the broker's ${VAR}s for every `protean-ts` command of the shop. */
  env: Record<string, string>;
  publishRaw(stream: string, payload: string): Promise<void>;
  backlog(): Promise<StreamBacklog>;
  drop(): Promise<void>;
  /** The Redis namespace itself when the kind is `redis`, for tests that look at Redis directly. */
  redis?: RedisNamespace;
}

export function shopBrokerKind(): ShopBrokerKind {
  const kind = process.env.SHOP_BROKER ?? 'redis';
  if (kind !== 'redis' && kind !== 'nats') throw new Error(`SHOP_BROKER must be "redis" or "nats", got ${JSON.stringify(kind)}`);
  return kind;
}

export function shopBrokerService(kind: ShopBrokerKind = shopBrokerKind()): ServiceCheck {
  return kind === 'nats' ? NATS : REDIS;
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
