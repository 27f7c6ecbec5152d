/**
 * bench `--broker rabbitmq`: RabbitMQBroker; the raw baseline publishes a whole batch at once on
 * one rabbitmq-client confirm channel, persistent and `mandatory` (the guarantee the adapter
 * gives), and awaits the confirms; the watcher is an exclusive queue bound to the stream's
 * fanout exchange before anything is published, so a message counts once a subscriber could read it.
 */
import { randomBytes } from 'node:crypto';
import { Connection, type AsyncMessage, type Channel } from 'rabbitmq-client';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { waitForArrivals, type ArrivalWatcher, type BenchBroker } from './bench-broker.js';

const URI = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The adapter's names under `name_prefix` (packages/rabbitmq/src/rabbitmq-names.ts). */
const names = {
  exchange: (prefix: string, stream: string) => `${prefix}${stream}`,
  holdingQueue: (prefix: string, stream: string) => `${prefix}${stream}:unclaimed`,
  deadLetterQueue: (prefix: string, stream: string) => `${prefix}${stream}:dlq`,
  unroutedExchange: (prefix: string) => `${prefix}protean.unrouted`,
};

export function rabbitmqBenchBroker(): BenchBroker {
  // drop(prefix) has only the prefix and plain AMQP cannot list a vhost's objects: remember the streams.
  const streamsOf = new Map<string, Set<string>>();
  return {
    kind: 'rabbitmq',
    rawClient: 'rabbitmq-client',
    newPrefix: (label) => `bench:${label}:${randomBytes(4).toString('hex')}:`,
    frameworkBroker: (name, prefix) => new RabbitMQBroker(name, { provider: 'rabbitmq', uri: URI, name_prefix: prefix }),
    async rawPublisher() {
      const connection = new Connection(URI);
      const channel = await connection.acquire();
      await channel.confirmSelect();
      const returned: string[] = [];
      channel.on('basic.return', (message) => returned.push(String(message.messageId)));
      return {
        async publish(prefix, messages) {
          await Promise.all(
            messages.map((m) =>
              channel.basicPublish(
                {
                  exchange: names.exchange(prefix, m.stream),
                  routingKey: m.stream,
                  mandatory: true,
                  durable: true,
                  contentType: 'application/json',
                  messageId: m.messageId,
                  type: m.messageType,
                },
                Buffer.from(m.envelope),
              ),
            ),
          );
          // rabbitmq-client emits basic.return after the confirm has resolved the publish.
          await new Promise((resolve) => setImmediate(resolve));
          const unroutable = returned.splice(0);
          if (unroutable.length)
            throw new Error(
              `RabbitMQ returned ${unroutable.length} message(s) as unroutable (no queue bound to the stream's exchange), e.g. ${unroutable.slice(0, 3).join(', ')}`,
            );
        },
        async close() {
          await channel.close();
          await connection.close();
        },
      };
    },
    async watch(prefix, stream) {
      if (!streamsOf.has(prefix)) streamsOf.set(prefix, new Set());
      streamsOf.get(prefix)!.add(stream);
      const connection = new Connection(URI);
      const channel = await connection.acquire();
      const exchange = names.exchange(prefix, stream);
      // Declared exactly as the adapter declares them, so either side may come first.
      await channel.exchangeDeclare({ exchange: names.unroutedExchange(prefix), type: 'direct', durable: true });
      await channel.exchangeDeclare({ exchange, type: 'fanout', durable: true, arguments: { 'alternate-exchange': names.unroutedExchange(prefix) } });
      const { queue } = await channel.queueDeclare({ exclusive: true, autoDelete: true });
      await channel.queueBind({ queue, exchange });
      return RabbitmqExchangeWatcher.start(connection, channel, queue, exchange);
    },
    async drop(prefix) {
      const connection = new Connection(URI);
      try {
        // Deleting what does not exist is not an error on RabbitMQ 3.x.
        for (const stream of streamsOf.get(prefix) ?? []) {
          await connection.queueDelete({ queue: names.holdingQueue(prefix, stream) });
          await connection.queueDelete({ queue: names.deadLetterQueue(prefix, stream) });
          await connection.exchangeDelete({ exchange: names.exchange(prefix, stream) });
        }
        await connection.exchangeDelete({ exchange: names.unroutedExchange(prefix) });
        streamsOf.delete(prefix);
      } finally {
        await connection.close();
      }
    },
  };
}

class RabbitmqExchangeWatcher implements ArrivalWatcher {
  readonly arrivals = new Map<string, number>();

  private constructor(
    private readonly connection: Connection,
    private readonly channel: Channel,
    private readonly queue: string,
    private readonly exchange: string,
  ) {}

  static async start(connection: Connection, channel: Channel, queue: string, exchange: string): Promise<RabbitmqExchangeWatcher> {
    const watcher = new RabbitmqExchangeWatcher(connection, channel, queue, exchange);
    await channel.basicConsume({ queue, noAck: true }, (message) => watcher.saw(message));
    return watcher;
  }

  /**
   * Keyed on the envelope's `metadata.headers.id`, the id the outbox row was committed with (what
   * the Redis watcher reads from the entry's `id` field): the adapter's AMQP `message-id` is an id
   * of its own, the raw side's is the row's.
   */
  private saw(message: AsyncMessage): void {
    const now = performance.now();
    const id = envelopeId(message.body) ?? String(message.messageId);
    if (!this.arrivals.has(id)) this.arrivals.set(id, now);
  }

  waitFor(count: number, timeoutMs: number): Promise<void> {
    return waitForArrivals(this.arrivals, count, timeoutMs, this.exchange);
  }

  async close(): Promise<void> {
    await this.channel.queueDelete({ queue: this.queue });
    await this.channel.close();
    await this.connection.close();
  }
}

/** rabbitmq-client parses `application/json` bodies itself; anything else is parsed here. */
function envelopeId(body: unknown): string | undefined {
  let value = body;
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    try {
      value = JSON.parse(value.toString());
    } catch {
      return undefined;
    }
  }
  const id = (value as { metadata?: { headers?: { id?: unknown } } } | null)?.metadata?.headers?.id;
  return typeof id === 'string' ? id : undefined;
}
