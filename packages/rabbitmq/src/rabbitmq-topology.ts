/**
 * Declares what the broker uses, once per process: per stream a durable fanout exchange whose
 * alternate exchange routes messages nobody is bound for into the stream's holding queue; per
 * group a durable quorum queue bound to it, with RabbitMQ's delivery limit dead-lettering poison
 * messages into the stream's dead-letter queue. A new group first takes over what waited in the
 * holding queue, so messages published before any handler subscribed are not lost.
 */
import type { Channel, Connection } from 'rabbitmq-client';
import type { LazyChannel } from './rabbitmq-channels.js';
import type { RabbitMQNames } from './rabbitmq-names.js';
import type { ConfirmingPublisher } from './rabbitmq-publisher.js';

/** Holding-queue messages moved per round (one confirm wait, one multiple-ack). */
const MOVE_BATCH = 500;

export interface TopologyOptions {
  maxlen: number;
  deliveryLimit: number;
}

export class RabbitMQTopology {
  private readonly streams = new Map<string, Promise<void>>();
  private readonly groups = new Map<string, Promise<void>>();
  private readonly deadLetterQueues = new Map<string, Promise<void>>();
  private unrouted: Promise<void> | null = null;

  constructor(
    private readonly names: RabbitMQNames,
    private readonly commands: LazyChannel,
    private readonly connection: () => Connection,
    private readonly publisher: ConfirmingPublisher,
    private readonly options: TopologyOptions,
  ) {}

  /** After a reconnect everything is declared again (cheap, idempotent), in case the server lost it. */
  forget(): void {
    this.streams.clear();
    this.groups.clear();
    this.deadLetterQueues.clear();
    this.unrouted = null;
  }

  ensureStream(stream: string): Promise<void> {
    return once(this.streams, stream, async () => {
      this.unrouted ??= this.declare((ch) => ch.exchangeDeclare({ exchange: this.names.unroutedExchange, type: 'direct', durable: true })).catch((err) => {
        this.unrouted = null;
        throw err;
      });
      await this.unrouted;
      const holding = this.names.holdingQueue(stream);
      await this.declare(async (ch) => {
        await ch.exchangeDeclare({
          exchange: this.names.exchange(stream),
          type: 'fanout',
          durable: true,
          arguments: { 'alternate-exchange': this.names.unroutedExchange },
        });
        await ch.queueDeclare({ queue: holding, durable: true, arguments: this.holdingArguments() });
        await ch.queueBind({ queue: holding, exchange: this.names.unroutedExchange, routingKey: stream });
      });
    });
  }

  ensureDeadLetterQueue(stream: string): Promise<void> {
    return once(this.deadLetterQueues, stream, () =>
      this.declare(async (ch) => {
        await ch.queueDeclare({ queue: this.names.deadLetterQueue(stream), durable: true, arguments: { 'x-queue-type': 'classic' } });
      }),
    );
  }

  ensureGroup(stream: string, group: string): Promise<void> {
    return once(this.groups, `${stream}\u0000${group}`, async () => {
      await this.ensureStream(stream);
      await this.ensureDeadLetterQueue(stream);
      const queue = this.names.groupQueue(stream, group);
      await this.declare(async (ch) => {
        await ch.queueDeclare({ queue, durable: true, arguments: this.groupArguments(stream) });
      });
      // Unbound first: what waited goes in ahead of what is published from now on.
      await this.moveHeldMessages(stream, queue);
      await this.declare((ch) => ch.queueBind({ queue, exchange: this.names.exchange(stream), routingKey: '' }));
      await this.moveHeldMessages(stream, queue);
    });
  }

  /** Groups of `stream` this process declared (and so reads or has read). */
  declaredGroups(stream: string): string[] {
    const prefix = `${stream}\u0000`;
    return [...this.groups.keys()].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  }

  /**
   * A queue's ready messages and consumers now, or null when it does not exist (checked on a
   * throwaway channel: a passive declare of a missing queue closes its channel).
   */
  async queueCounts(queue: string): Promise<{ ready: number; consumers: number } | null> {
    const channel = await this.connection().acquire();
    try {
      const ok = await channel.queueDeclare({ queue, passive: true });
      return { ready: ok.messageCount, consumers: ok.consumerCount };
    } catch (err) {
      if ((err as { code?: string }).code === 'NOT_FOUND') return null;
      throw err;
    } finally {
      if (channel.active) await channel.close().catch(() => undefined);
    }
  }

  private groupArguments(stream: string): Record<string, unknown> {
    return {
      'x-queue-type': 'quorum',
      'x-delivery-limit': this.options.deliveryLimit,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': this.names.deadLetterQueue(stream),
    };
  }

  private holdingArguments(): Record<string, unknown> {
    const args: Record<string, unknown> = { 'x-queue-type': 'quorum' };
    if (this.options.maxlen > 0) Object.assign(args, { 'x-max-length': this.options.maxlen, 'x-overflow': 'drop-head' });
    return args;
  }

  /** Moves the holding queue's messages into `queue`, confirmed before they are acked. */
  private async moveHeldMessages(stream: string, queue: string): Promise<void> {
    const holding = this.names.holdingQueue(stream);
    const channel = await this.connection().acquire();
    try {
      for (;;) {
        const batch = [];
        while (batch.length < MOVE_BATCH) {
          const message = await channel.basicGet({ queue: holding });
          if (!message) break;
          batch.push(message);
        }
        if (batch.length === 0) return;
        await Promise.all(
          batch.map(({ body, deliveryTag: _tag, redelivered: _r, exchange: _e, routingKey: _k, messageCount: _c, ...properties }) =>
            this.publisher.publish('', queue, body, { ...properties, durable: true }),
          ),
        );
        channel.basicAck({ deliveryTag: batch[batch.length - 1]!.deliveryTag, multiple: true });
        if (batch.length < MOVE_BATCH) return;
      }
    } finally {
      // Unacked ones (a failed move) go back to the holding queue.
      if (channel.active) await channel.close().catch(() => undefined);
    }
  }

  private async declare(work: (channel: Channel) => Promise<unknown>): Promise<void> {
    try {
      await work(await this.commands.get());
    } catch (err) {
      throw explainPrecondition(err);
    }
  }
}

/** Runs `make` once per key; a failure is forgotten so the next call tries again. */
function once(cache: Map<string, Promise<void>>, key: string, make: () => Promise<void>): Promise<void> {
  let pending = cache.get(key);
  if (!pending) {
    pending = make().catch((err) => {
      cache.delete(key);
      throw err;
    });
    cache.set(key, pending);
  }
  return pending;
}

/**
 * A queue or exchange that exists with other arguments (delivery_limit or maxlen changed since it
 * was declared): RabbitMQ refuses to redeclare it, on every call. Says which and how to fix it.
 */
function explainPrecondition(err: unknown): unknown {
  const message = err instanceof Error ? err.message : '';
  const match = /inequivalent arg '([^']+)' for (?:queue|exchange) '([^']+)'.*received '([^']*)' but current is '([^']*)'/.exec(message);
  if ((err as { code?: unknown })?.code !== 'PRECONDITION_FAILED' || !match) return err;
  const [, arg, name, wanted, current] = match;
  const key = arg === 'x-delivery-limit' ? 'delivery_limit' : arg === 'x-max-length' ? 'maxlen' : arg;
  return new Error(
    `RabbitMQ already has "${name}" with ${arg} = ${current}, but this broker's ${key} asks for ${wanted}; ` +
      `set ${key} back to ${current}, or delete "${name}" (its messages go with it) so it is declared again`,
    { cause: err },
  );
}
