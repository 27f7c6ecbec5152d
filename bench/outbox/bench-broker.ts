/**
 * The broker a bench/outbox run measures (`--broker redis|rabbitmq`, or BENCH_BROKER): the
 * framework's adapter for the OutboxProcessor, the raw client's publish for the hand-written
 * loop, and a watcher that notes when each message reaches a consumer (Redis XREAD BLOCK; a
 * RabbitMQ queue of its own bound to the stream's exchange before anything is published).
 */
import { Connection, type Channel } from 'rabbitmq-client';
import { Redis } from 'ioredis';
import type { Broker } from '@protean-ts/core';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { RedisBroker } from '@protean-ts/redis';
import { BENCH_STREAM } from './bench-rows.js';
import { StreamWatcher } from './stream-watcher.js';

export type BenchBrokerKind = 'redis' | 'rabbitmq';

export interface RawMessage {
  stream_name: string;
  message_id: string;
  message_type: string;
  data: unknown;
  metadata: unknown;
}

export interface ArrivalWatcher {
  readonly arrivals: Map<string, number>;
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface BenchBroker {
  kind: BenchBrokerKind;
  /** What the raw loop uses; label of the raw side. */
  rawClient: string;
  framework(name: string, prefix: string): Broker;
  /** Publishes a batch the way a careful hand-written relay would; resolves once the broker has it. */
  rawPublish(prefix: string, rows: readonly RawMessage[]): Promise<void>;
  watch(prefix: string): Promise<ArrivalWatcher>;
  /** Removes what a round left under `prefix`. */
  cleanup(prefix: string): Promise<void>;
  close(): Promise<void>;
}

export function benchBrokerKind(argv: readonly string[] = process.argv): BenchBrokerKind {
  const at = argv.indexOf('--broker');
  const kind = at >= 0 ? argv[at + 1] : (process.env.BENCH_BROKER ?? 'redis');
  if (kind !== 'redis' && kind !== 'rabbitmq') throw new Error(`--broker must be redis or rabbitmq, got ${JSON.stringify(kind)}`);
  return kind;
}

export function redisBenchBroker(uri: string): BenchBroker {
  const redis = new Redis(uri);
  return {
    kind: 'redis',
    rawClient: 'ioredis',
    framework: (name, prefix) => new RedisBroker(name, { provider: 'redis', uri, stream_prefix: prefix }),
    rawPublish: async (prefix, rows) => {
      const pipeline = redis.pipeline();
      for (const row of rows) {
        pipeline.xadd(`${prefix}${row.stream_name}`, 'MAXLEN', '~', '100000', '*',
          'envelope', JSON.stringify({ data: row.data, metadata: row.metadata }), 'type', row.message_type, 'id', row.message_id);
      }
      await pipeline.exec();
    },
    watch: async (prefix) => new StreamWatcher(uri, `${prefix}${BENCH_STREAM}`),
    cleanup: async (prefix) => {
      await redis.del(`${prefix}${BENCH_STREAM}`);
    },
    close: async () => redis.disconnect(),
  };
}

export function rabbitmqBenchBroker(uri: string): BenchBroker {
  const connection = new Connection(uri);
  let confirmChannel: Promise<Channel> | null = null;
  const confirmed = () => (confirmChannel ??= connection.acquire().then(async (ch) => (await ch.confirmSelect(), ch)));
  const withChannel = async <T>(work: (ch: Channel) => Promise<T>): Promise<T> => {
    const ch = await connection.acquire();
    try {
      return await work(ch);
    } finally {
      await ch.close();
    }
  };
  return {
    kind: 'rabbitmq',
    rawClient: 'rabbitmq-client',
    framework: (name, prefix) => new RabbitMQBroker(name, { provider: 'rabbitmq', uri, name_prefix: prefix }),
    // All of the batch on one confirm channel at once, persistent and mandatory: the same guarantee the adapter gives.
    rawPublish: async (prefix, rows) => {
      const ch = await confirmed();
      await Promise.all(rows.map((row) => ch.basicPublish(
        { exchange: `${prefix}${row.stream_name}`, routingKey: row.stream_name, mandatory: true, durable: true, contentType: 'application/json', messageId: row.message_id, type: row.message_type },
        Buffer.from(JSON.stringify({ data: row.data, metadata: row.metadata })),
      )));
    },
    watch: async (prefix) => {
      const ch = await connection.acquire();
      const exchange = `${prefix}${BENCH_STREAM}`;
      // Declared as the adapter declares it, so either side can publish to it.
      await ch.exchangeDeclare({ exchange: `${prefix}protean.unrouted`, type: 'direct', durable: true });
      await ch.exchangeDeclare({ exchange, type: 'fanout', durable: true, arguments: { 'alternate-exchange': `${prefix}protean.unrouted` } });
      const { queue } = await ch.queueDeclare({ exclusive: true, autoDelete: true });
      await ch.queueBind({ queue, exchange });
      const arrivals = new Map<string, number>();
      await ch.basicConsume({ queue, noAck: true }, (message) => {
        const body = message.body as { metadata?: { headers?: { id?: string } } };
        const id = body?.metadata?.headers?.id ?? String(message.messageId);
        if (!arrivals.has(id)) arrivals.set(id, performance.now());
      });
      return {
        arrivals,
        waitFor: async (count, timeoutMs) => {
          const deadline = performance.now() + timeoutMs;
          while (arrivals.size < count) {
            if (performance.now() > deadline) throw new Error(`only ${arrivals.size} of ${count} messages reached ${exchange} in ${timeoutMs} ms`);
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        },
        close: () => ch.close(),
      };
    },
    cleanup: (prefix) =>
      withChannel(async (ch) => {
        await ch.queueDelete({ queue: `${prefix}${BENCH_STREAM}:unclaimed` });
        await ch.exchangeDelete({ exchange: `${prefix}${BENCH_STREAM}` });
        await ch.exchangeDelete({ exchange: `${prefix}protean.unrouted` });
      }),
    close: async () => {
      if (confirmChannel) await (await confirmChannel).close();
      await connection.close();
    },
  };
}
