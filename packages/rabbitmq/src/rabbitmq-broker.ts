/**
 * The RabbitMQ broker (`provider = "rabbitmq"`): every stream is a durable fanout exchange, every
 * consumer group a durable quorum queue bound to it (competing consumers share it), publishes
 * wait for publisher confirms with `mandatory` set, reads are `basic.get` or, when they block, a
 * long-lived consumer per group queue whose deliveries wait in a buffer, acks go to the delivering channel,
 * and RabbitMQ's own delivery limit dead-letters a message whose consumers keep dying. A
 * crashed worker's unacked messages return to their queue the moment its connection closes, so
 * this adapter needs no reclaim: it declares neither RECLAIM_PENDING nor LIVENESS.
 */
import { randomBytes } from 'node:crypto';
import { AMQPConnectionError, Connection, type Channel, type SyncMessage, type AsyncMessage } from 'rabbitmq-client';
import {
  BaseBroker,
  BrokerBatchError,
  BrokerCapability,
  BrokerSettingsError,
  getLogger,
  type BrokerSettings,
  type DeadLetter,
  type GroupProgress,
  type GroupLag,
  type GroupStatus,
  type Logger,
  type OutgoingMessage,
  type PublishResult,
  type ReadOptions,
  type ReceivedMessage,
} from '@protean-ts/core';
import { LazyChannel, ReadChannelPool } from './rabbitmq-channels.js';
import { readRabbitMQBrokerSettings, type RabbitMQBrokerSettings } from './rabbitmq-broker-settings.js';
import { letterHeaders, visitLetters } from './rabbitmq-dead-letters.js';
import { RabbitMQGroupBacklog } from './rabbitmq-group-backlog.js';
import { RabbitMQManagementApi } from './rabbitmq-management.js';
import { deliveryCountOf, encodeEnvelope, messageProperties, rawText } from './rabbitmq-message-codec.js';
import { rabbitmqMessageFormat, type RabbitMQMessageFormat } from './rabbitmq-message-format.js';
import { deadLetterUndecodable, type UndecodableDeadLettering } from './rabbitmq-undecodable.js';
import { RabbitMQNames } from './rabbitmq-names.js';
import { PendingDeliveries } from './rabbitmq-pending.js';
import { ConfirmingPublisher } from './rabbitmq-publisher.js';
import { QueueConsumer } from './rabbitmq-queue-consumer.js';
import { RabbitMQTopology } from './rabbitmq-topology.js';

/** Reconnect back-off bounds: a restarted RabbitMQ is picked up within about a second. */
const RETRY_LOW_MS = 200;
const RETRY_HIGH_MS = 1_000;
const CONNECTION_ERROR_CODES = new Set([
  'CH_CLOSE',
  'CLOSED',
  'TIMEOUT',
  'CONN_CLOSE',
  'CONNECTION_FORCED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SOCKET_TIMEOUT',
  'CONNECTION_TIMEOUT',
  'READ_END',
  'CLOSING',
  'CONNECT_TIMEOUT',
]);

type Delivery = SyncMessage | AsyncMessage;

export { UNDECODABLE_DEAD_LETTER_DELIVERIES } from './rabbitmq-undecodable.js';

export class RabbitMQBroker extends BaseBroker {
  readonly provider = 'rabbitmq';
  readonly capabilities =
    BrokerCapability.PUBLISH |
    BrokerCapability.CONSUMER_GROUPS |
    BrokerCapability.ACK_NACK |
    BrokerCapability.BLOCKING_READ |
    BrokerCapability.DEAD_LETTER_QUEUE |
    BrokerCapability.DURABLE |
    BrokerCapability.DISTRIBUTED |
    BrokerCapability.CONSUMER_LAG;

  readonly names: RabbitMQNames;
  private readonly config: RabbitMQBrokerSettings;
  private readonly log: Logger;
  private connection: Connection | null = null;
  private readonly commands: LazyChannel;
  private readonly reads: ReadChannelPool;
  private readonly publisher: ConfirmingPublisher;
  private readonly topology: RabbitMQTopology;
  private readonly backlog: RabbitMQGroupBacklog;
  private readonly pending = new PendingDeliveries();
  private readonly format: RabbitMQMessageFormat;
  private readonly undecodable: UndecodableDeadLettering;
  /** The long-lived consumer of each group queue this instance has read blocking. */
  private readonly queueConsumers = new Map<string, QueueConsumer>();
  private readonly instance = randomBytes(4).toString('hex');
  private sequence = 0;
  private down = false;
  private lastConnectionError: Error | undefined;

  constructor(name: string, settings: BrokerSettings) {
    super(name, settings);
    this.config = readRabbitMQBrokerSettings(name, settings);
    this.names = new RabbitMQNames(this.config.namePrefix);
    this.log = getLogger('broker.rabbitmq', { broker: name, uri: this.config.maskedUri });
    const connection = () => this.open();
    this.commands = new LazyChannel(connection);
    this.reads = new ReadChannelPool(connection);
    this.publisher = new ConfirmingPublisher(connection);
    this.topology = new RabbitMQTopology(this.names, this.commands, connection, this.publisher, this.config);
    const management = this.config.management ? new RabbitMQManagementApi(name, this.config.management, this.config.vhost, this.config.connectTimeoutMs) : null;
    // Buffered deliveries are this instance's as much as read ones: RabbitMQ counts them unacked.
    const heldHere = (queue: string) => this.pending.count(queue) + (this.queueConsumers.get(queue)?.buffered ?? 0);
    this.backlog = new RabbitMQGroupBacklog(name, this.names, this.topology, management, heldHere);
    this.format = rabbitmqMessageFormat(this.config.messageFormat);
    this.undecodable = {
      names: this.names,
      topology: this.topology,
      publisher: this.publisher,
      log: this.log,
      nextId: () => this.nextId(),
      isConnectionError: (error) => this.isConnectionError(error),
    };
  }

  protected async doConnect(): Promise<void> {
    try {
      await this.open().onConnect(this.config.connectTimeoutMs, true);
    } catch {
      const last = this.lastConnectionError;
      const code = (last as { code?: unknown } | undefined)?.code;
      // Credentials or a vhost the user may not open: waiting cannot fix it.
      if (code === 'ACCESS_REFUSED' || code === 'NOT_ALLOWED') {
        throw new BrokerSettingsError(
          this.name,
          'uri',
          `RabbitMQ at ${this.config.maskedUri} refused the connection (${this.redact(String(last?.message))}); check the user, password and virtual host (the uri's path) and the user's permissions on it`,
        );
      }
      throw Object.assign(new Error(`no connection within connect_timeout_ms (${this.config.connectTimeoutMs} ms)${last ? `: ${last.message}` : ''}`), {
        code: 'CONNECT_TIMEOUT',
      });
    }
  }

  protected async doPublish(message: OutgoingMessage): Promise<string> {
    const id = this.nextId();
    await this.topology.ensureStream(message.stream);
    const { body, properties } = this.format.encode(id, message.envelope);
    await this.publisher.publish(this.names.exchange(message.stream), message.stream, body, properties);
    return id;
  }

  /** All on the one confirm channel at once; RabbitMQ confirms them as a stream, so one round trip's wait. */
  protected override async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    const results = await Promise.allSettled(messages.map((message) => this.doPublish(message)));
    if (results.every((r) => r.status === 'fulfilled')) return results.map((r) => (r as PromiseFulfilledResult<string>).value);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failures.length === results.length || failures.some((f) => this.isConnectionError(f.reason))) throw failures[0]!.reason;
    const outcome: PublishResult[] = results.map((r) =>
      r.status === 'fulfilled' ? { ok: true, id: r.value } : { ok: false, error: this.translate('publish', r.reason) },
    );
    throw new BrokerBatchError(this.name, outcome);
  }

  protected override async doEnsureGroup(stream: string, group: string): Promise<void> {
    await this.topology.ensureGroup(stream, group);
  }

  /** The group queue's consumer goes: RabbitMQ puts what it prefetched and no read took back in the queue. */
  protected override async doReleaseGroup(stream: string, group: string): Promise<void> {
    const queue = this.names.groupQueue(stream, group);
    const queueConsumer = this.queueConsumers.get(queue);
    if (!queueConsumer) return;
    this.queueConsumers.delete(queue);
    await queueConsumer.close();
  }

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    await this.topology.ensureGroup(stream, group);
    const queue = this.names.groupQueue(stream, group);
    this.pending.seen(queue, consumer);
    const queueConsumer = this.queueConsumer(queue);
    if (options.blockMs > 0 && queueConsumer.buffered === 0 && this.state !== 'closed') {
      await queueConsumer.waitForDeliveries(options.count, options.blockMs);
    }
    const buffered = queueConsumer.take(options.count);
    const received = buffered ? await this.accept(stream, group, queue, consumer, buffered.channel, buffered.deliveries) : [];
    if (received.length > 0 || options.blockMs > 0) return received;
    // Nothing buffered and no wait: take what is ready, one basic.get at a time.
    const channel = await this.reads.take();
    try {
      const deliveries: Delivery[] = [];
      while (deliveries.length < options.count) {
        const message = await channel.basicGet({ queue });
        if (!message) break;
        deliveries.push(message);
      }
      return await this.accept(stream, group, queue, consumer, channel, deliveries);
    } finally {
      this.reads.give(channel);
    }
  }

  protected override async doAck(stream: string, group: string, ids: readonly string[]): Promise<number> {
    const queue = this.names.groupQueue(stream, group);
    let acked = 0;
    for (const id of ids) {
      const delivery = this.pending.take(queue, id);
      if (!delivery) continue;
      delivery.channel.basicAck({ deliveryTag: delivery.deliveryTag });
      acked += 1;
    }
    return acked;
  }

  /** Back to the group's queue (quorum queues count it in `x-delivery-count`); the next read gets it. */
  protected override async doNack(stream: string, group: string, id: string): Promise<void> {
    const delivery = this.pending.take(this.names.groupQueue(stream, group), id);
    delivery?.channel.basicNack({ deliveryTag: delivery.deliveryTag, requeue: true });
  }

  protected override async doRemoveIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    return this.pending.removeIdle(this.names.groupQueue(stream, group), idleMs);
  }

  protected override doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    return this.backlog.status(stream, group);
  }

  protected override doGroupProgress(stream: string, group: string, through: string | undefined): Promise<GroupProgress> {
    return this.backlog.progress(stream, group, through);
  }

  async consumerLag(stream: string): Promise<GroupLag[]> {
    await this.connect();
    return this.guard(`read the consumer lag of stream "${stream}"`, () => this.backlog.consumerLag(stream));
  }

  /** The letter is confirmed before the original is acked: never acked without its dead letter. */
  protected override async doDeadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    const queue = this.names.groupQueue(stream, group);
    const held = this.pending.peek(queue, message.id);
    await this.topology.ensureDeadLetterQueue(stream);
    const body = held ? held.body : encodeEnvelope(message.envelope);
    const headers = letterHeaders({ originalId: message.id, stream, group, error, deliveryCount: message.deliveryCount });
    await this.publisher.publish(
      '',
      this.names.deadLetterQueue(stream),
      Buffer.isBuffer(body) ? body : Buffer.from(rawText(body)),
      messageProperties(this.nextId(), message.envelope, headers),
    );
    const delivery = this.pending.take(queue, message.id);
    delivery?.channel.basicAck({ deliveryTag: delivery.deliveryTag });
  }

  protected override async doListDeadLetters(stream: string, count: number): Promise<DeadLetter[]> {
    await this.topology.ensureDeadLetterQueue(stream);
    const letters: DeadLetter[] = [];
    await visitLetters(this.open(), this.names, stream, count, this.config.deliveryLimit, async (letter) => {
      letters.push(letter);
      return false;
    });
    return letters;
  }

  protected override async doReplayDeadLetters(stream: string, ids: readonly string[] | undefined): Promise<number> {
    await this.topology.ensureDeadLetterQueue(stream);
    const chosen = ids ? new Set(ids) : null;
    return visitLetters(this.open(), this.names, stream, Number.MAX_SAFE_INTEGER, this.config.deliveryLimit, async (letter) => {
      if (letter.envelope === null || (chosen && !chosen.has(letter.id))) return false;
      await this.doPublish({ stream, envelope: letter.envelope });
      return true;
    });
  }

  protected override async doPurgeDeadLetters(stream: string): Promise<number> {
    await this.topology.ensureDeadLetterQueue(stream);
    const { messageCount } = await (await this.commands.get()).queuePurge({ queue: this.names.deadLetterQueue(stream) });
    return messageCount;
  }

  protected async doPing(): Promise<boolean> {
    return this.connection?.ready ?? false;
  }

  protected async doInfo(): Promise<Record<string, unknown>> {
    const management = this.config.management
      ? { managementUri: this.config.management.maskedUri, managementStatsIntervalMs: this.config.management.statsIntervalMs }
      : {};
    return {
      uri: this.config.maskedUri,
      namePrefix: this.config.namePrefix,
      deliveryLimit: this.config.deliveryLimit,
      maxlen: this.config.maxlen,
      ...management,
    };
  }

  protected async doClose(): Promise<void> {
    for (const queueConsumer of this.queueConsumers.values()) queueConsumer.wakeAll();
    const connection = this.connection;
    if (!connection) return;
    // Closing the channels hands every unacked delivery back to its queue.
    await Promise.all([this.reads.closeAll(), this.commands.close(), this.publisher.close(), ...[...this.queueConsumers.values()].map((c) => c.close())]);
    this.pending.clear();
    await connection.close().catch(() => undefined);
  }

  protected override describeTarget(): string {
    return `RabbitMQ at ${this.config.maskedUri}`;
  }

  protected override redact(text: string): string {
    let out = text.split(this.config.uri).join(this.config.maskedUri);
    for (const secret of this.config.secrets) if (secret) out = out.split(secret).join('***');
    return out;
  }

  protected override isConnectionError(error: unknown): boolean {
    if (error instanceof AMQPConnectionError) return true;
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
  }

  private queueConsumer(queue: string): QueueConsumer {
    let queueConsumer = this.queueConsumers.get(queue);
    if (!queueConsumer) this.queueConsumers.set(queue, (queueConsumer = new QueueConsumer(() => this.open(), queue)));
    return queueConsumer;
  }

  /** Broker message ids: time-ordered within this instance, unique across instances. */
  private nextId(): string {
    this.sequence += 1;
    return `${Date.now()}-${this.instance}-${this.sequence}`;
  }

  private open(): Connection {
    if (this.connection) return this.connection;
    const connection = new Connection({
      url: this.config.uri,
      connectionName: `protean-ts:${this.name}`,
      connectionTimeout: this.config.connectTimeoutMs,
      acquireTimeout: this.config.connectTimeoutMs,
      retryLow: RETRY_LOW_MS,
      retryHigh: RETRY_HIGH_MS,
      // Without it Nagle's algorithm holds a publish back while an earlier small frame (an ack,
      // which RabbitMQ answers with nothing) waits for the server's delayed TCP ACK: 40 ms a hop.
      noDelay: true,
    });
    connection.on('error', (err) => {
      this.lastConnectionError = err instanceof Error ? err : new Error(String(err));
      if (this.state === 'closed') return;
      if (!this.down) this.log.warn('RabbitMQ connection lost; reconnecting', { error: this.redact(String((err as Error)?.message ?? err)) });
      this.down = true;
    });
    connection.on('connection', () => {
      this.topology.forget();
      this.lastConnectionError = undefined;
      if (this.down) this.log.info('RabbitMQ connection restored');
      this.down = false;
    });
    this.connection = connection;
    return connection;
  }

  /** Registers deliveries as pending; one that is not an envelope is dead-lettered alone and acked. */
  private async accept(stream: string, group: string, queue: string, consumer: string, channel: Channel, deliveries: Delivery[]): Promise<ReceivedMessage[]> {
    const received: ReceivedMessage[] = [];
    for (const delivery of deliveries) {
      const decoded = this.format.decode(delivery);
      const id = delivery.messageId ?? `${this.nextId()}-unnamed`;
      if (!decoded.ok) {
        await deadLetterUndecodable(this.undecodable, { stream, group, channel, delivery, id, reason: decoded.reason });
        continue;
      }
      this.pending.add(id, { channel, deliveryTag: delivery.deliveryTag, queue, consumer, body: delivery.body });
      received.push({
        id,
        stream,
        envelope: decoded.envelope,
        deliveryCount: deliveryCountOf(delivery.headers as Record<string, unknown> | undefined, delivery.redelivered),
      });
    }
    return received;
  }
}
