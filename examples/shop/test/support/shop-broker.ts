/**
 * The broker side of the shop's e2e run, chosen by SHOP_BROKER (`redis`, the default, or
 * `rabbitmq`): a namespace of its own (a Redis key prefix, a RabbitMQ virtual host), the
 * environment that points the shop's PROTEAN_ENV overlay at it, a way for a system outside the
 * domain to write to a stream, and what is left in the broker after the run.
 */
import { Connection } from 'rabbitmq-client';
import { createRabbitmqVhost, deleteRabbitmqVhost, rabbitmqUri } from '@protean-ts/core/testing';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { createRedisNamespace, REDIS_SERVER } from './redis-namespace.js';
import { readStreamBacklog, type StreamBacklog } from './stream-backlog.js';

export type ShopBrokerKind = 'redis' | 'rabbitmq';

export interface ShopBroker {
  kind: ShopBrokerKind;
  /** PROTEAN_ENV and the variables its overlay reads. */
  env: Record<string, string>;
  /** Another system writes a message envelope (as JSON) to `stream`. */
  announce(stream: string, envelope: object): Promise<void>;
  /** Unfinished groups and dead letters; `groups` (`<stream>/<group>`) are the ones to look at where the broker cannot list them. */
  backlog(groups: readonly string[]): Promise<StreamBacklog>;
  drop(): Promise<void>;
}

export function shopBrokerKind(): ShopBrokerKind {
  const kind = process.env.SHOP_BROKER ?? 'redis';
  if (kind !== 'redis' && kind !== 'rabbitmq') throw new Error(`SHOP_BROKER must be "redis" or "rabbitmq", got "${kind}"`);
  return kind;
}

export async function createShopBroker(kind: ShopBrokerKind): Promise<ShopBroker> {
  return kind === 'rabbitmq' ? rabbitmqShopBroker() : redisShopBroker();
}

async function redisShopBroker(): Promise<ShopBroker> {
  const redis = await createRedisNamespace();
  return {
    kind: 'redis',
    env: { PROTEAN_ENV: 'production', REDIS_URL: REDIS_SERVER, REDIS_STREAM_PREFIX: redis.prefix },
    announce: async (stream, envelope) => {
      await redis.client.xadd(`${redis.prefix}${stream}`, '*', 'envelope', JSON.stringify(envelope));
    },
    backlog: () => readStreamBacklog(redis),
    drop: () => redis.drop(),
  };
}

async function rabbitmqShopBroker(): Promise<ShopBroker> {
  const vhost = await createRabbitmqVhost('shop');
  const uri = rabbitmqUri(vhost);
  return {
    kind: 'rabbitmq',
    env: { PROTEAN_ENV: 'rabbitmq', RABBITMQ_URL: uri },
    announce: async (stream, envelope) => {
      const connection = new Connection(uri);
      const publisher = connection.createPublisher({ confirm: true });
      try {
        // The stream's exchange (declared by the subscription that reads it), as any AMQP producer would.
        await publisher.send({ exchange: stream, routingKey: stream, contentType: 'application/json', durable: true, mandatory: true }, envelope);
      } finally {
        await publisher.close();
        await connection.close();
      }
    },
    backlog: async (groups) => {
      const observer = new RabbitMQBroker('backlog', { provider: 'rabbitmq', uri });
      const backlog: StreamBacklog = { unfinished: [], deadLetters: {}, groups: [] };
      try {
        for (const entry of groups) {
          const [stream, group] = entry.split('/') as [string, string];
          const status = await observer.groupStatus(stream, group);
          if (!status.exists) continue;
          backlog.groups.push(entry);
          // Every worker stopped: nothing is unacked any more, `lag` is what still waits.
          if (status.lag !== 0) backlog.unfinished.push(`${stream} / ${group}: ${status.lag} waiting`);
        }
        for (const stream of new Set(groups.map((g) => g.split('/')[0]!))) {
          const letters = await observer.listDeadLetters(stream, { count: 1000 });
          if (letters.length) backlog.deadLetters[stream] = letters.length;
        }
      } finally {
        await observer.close();
      }
      return backlog;
    },
    drop: () => deleteRabbitmqVhost(vhost),
  };
}
