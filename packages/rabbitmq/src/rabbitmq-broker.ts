/**
 * The RabbitMQ broker (`provider = "rabbitmq"`): every stream is a durable fanout exchange, every
 * consumer group a durable quorum queue bound to it (competing consumers share it), publishes
 * wait for publisher confirms with `mandatory` set, reads are `basic.get` or, when they block, a
 * short-lived consumer with a prefetch of the read's count, acks go to the delivering channel,
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
import { decodeBody, deliveryCountOf, encodeEnvelope, messageProperties, rawText } from './rabbitmq-message-codec.js';
import { RabbitMQNames } from './rabbitmq-names.js';
import { PendingDeliveries } from './rabbitmq-pending.js';
import { ConfirmingPublisher } from './rabbitmq-publisher.js';
import { RabbitMQTopology } from './rabbitmq-topology.js';

/** Reconnect back-off bounds: a restarted RabbitMQ is picked up within about a second. */
const RETRY_LOW_MS = 200;
const RETRY_HIGH_MS = 1_000;
/** How long a blocking read goes on collecting after its first delivery (up to its count). */
const GATHER_MS = 5;
const CONNECTION_ERROR_CODES = new Set(['CH_CLOSE', 'CLOSED', 'TIMEOUT', 'CONN_CLOSE', 'CONNECTION_FORCED', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'SOCKET_TIMEOUT', 'CONNECTION_TIMEOUT', 'READ_END', 'CLOSING', 'CONNECT_TIMEOUT']);

type Delivery = SyncMessage | AsyncMessage;

export class RabbitMQBroker extends BaseBroker {
  readonly provider = 'rabbitmq';
  readonly capabilities =
    BrokerCapability.PUBLISH |
    BrokerCapability.CONSUMER_GROUPS |
    BrokerCapability.ACK_NACK |
    BrokerCapability.BLOCKING_READ |
    BrokerCapability.DEAD_LETTER_QUEUE |
    BrokerCapability.DURABLE |
    BrokerCapability.DISTRIBUTED;

  readonly names: RabbitMQNames;
  private readonly config: RabbitMQBrokerSettings;
  private readonly log: Logger;
  private connection: Connection | null = null;
  private readonly commands: LazyChannel;
  private readonly reads: ReadChannelPool;
  private readonly publisher: ConfirmingPublisher;
  private readonly topology: RabbitMQTopology;
  private readonly pending = new PendingDeliveries();
  /** Wakes reads blocked in a consumer, so close() ends them at once. */
  private readonly blockedReads = new Set<() => void>();
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
  }

  protected async doConnect(): Promise<void> {
    try {
      await this.open().onConnect(this.config.connectTimeoutMs, true);
    } catch {
      const last = this.lastConnectionError;
      const code = (last as { code?: unknown } | undefined)?.code;
      // Credentials or a vhost the user may not open: waiting cannot fix it.
      if (code === 'ACCESS_REFUSED' || code === 'NOT_ALLOWED') {
        throw new BrokerSettingsError(this.name, 'uri', `RabbitMQ at ${this.config.maskedUri} refused the connection (${this.redact(String(last?.message))}); check the user, password and virtual host (the uri's path) and the user's permissions on it`);
      }
      throw Object.assign(new Error(`no connection within connect_timeout_ms (${this.config.connectTimeoutMs} ms)${last ? `: ${last.message}` : ''}`), { code: 'CONNECT_TIMEOUT' });
    }
  }

  protected async doPublish(message: OutgoingMessage): Promise<string> {
    const id = this.nextId();
    await this.topology.ensureStream(message.stream);
    await this.publisher.publish(this.names.exchange(message.stream), message.stream, encodeEnvelope(message.envelope), messageProperties(id, message.envelope));
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

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    await this.topology.ensureGroup(stream, group);
    const queue = this.names.groupQueue(stream, group);
    this.pending.seen(queue, consumer);
    const channel = await this.reads.take();
    try {
      // A blocking read is one consumer (three round trips) whether messages wait or not; one
      // that returns at once takes them one basic.get at a time.
      const deliveries: Delivery[] = [];
      if (options.blockMs > 0) {
        if (this.state !== 'closed') deliveries.push(...(await this.waitForDeliveries(channel, queue, options)));
      } else {
        while (deliveries.length < options.count) {
          const message = await channel.basicGet({ queue });
          if (!message) break;
          deliveries.push(message);
        }
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

  protected override async doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    const queue = this.names.groupQueue(stream, group);
    const ready = await this.topology.readyCount(queue);
    if (ready === null) return { pending: 0, lag: 0, exists: false };
    return { pending: this.pending.count(queue), lag: ready, exists: true };
  }

  /** The letter is confirmed before the original is acked: never acked without its dead letter. */
  protected override async doDeadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    const queue = this.names.groupQueue(stream, group);
    const held = this.pending.peek(queue, message.id);
    await this.topology.ensureDeadLetterQueue(stream);
    const body = held ? held.body : encodeEnvelope(message.envelope);
    const headers = letterHeaders({ originalId: message.id, stream, group, error, deliveryCount: message.deliveryCount });
    await this.publisher.publish('', this.names.deadLetterQueue(stream), Buffer.isBuffer(body) ? body : Buffer.from(rawText(body)), messageProperties(this.nextId(), message.envelope, headers));
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
    return { uri: this.config.maskedUri, namePrefix: this.config.namePrefix, deliveryLimit: this.config.deliveryLimit, maxlen: this.config.maxlen };
  }

  protected async doClose(): Promise<void> {
    for (const wake of this.blockedReads) wake();
    this.blockedReads.clear();
    const connection = this.connection;
    if (!connection) return;
    // Closing the channels hands every unacked delivery back to its queue.
    await Promise.all([this.reads.closeAll(), this.commands.close(), this.publisher.close()]);
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

  /** A consumer with a prefetch of `count` until the first delivery arrives, `blockMs` passes or close() runs. */
  private async waitForDeliveries(channel: Channel, queue: string, options: ReadOptions): Promise<Delivery[]> {
    const got: Delivery[] = [];
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, options.blockMs);
    const onClose = () => wake();
    channel.once('close', onClose);
    this.blockedReads.add(wake);
    let returned = false;
    try {
      await channel.basicQos({ prefetchCount: options.count });
      const { consumerTag } = await channel.basicConsume({ queue, noAck: false }, (message) => {
        // Never dropped: one that comes after the read returned goes back to the queue.
        if (returned) {
          channel.basicNack({ deliveryTag: message.deliveryTag, requeue: true });
          return;
        }
        got.push(message);
        // The rest of a backlog follows the first delivery within moments: a batch, not one.
        if (got.length === 1) setTimeout(wake, GATHER_MS);
        if (got.length >= options.count) wake();
      });
      await woken;
      // Deliveries already on the wire arrive before cancel-ok and are part of this read;
      // rabbitmq-client hands them to the callback with setImmediate, so let those run first.
      if (channel.active) await channel.basicCancel(consumerTag).catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      returned = true;
      clearTimeout(timer);
      channel.off('close', onClose);
      this.blockedReads.delete(wake);
    }
    if (!channel.active && this.state !== 'closed') {
      throw Object.assign(new Error('the channel closed while the read was waiting (connection lost)'), { code: 'CH_CLOSE' });
    }
    return got;
  }

  /** Registers deliveries as pending; one that is not an envelope is dead-lettered alone and acked. */
  private async accept(stream: string, group: string, queue: string, consumer: string, channel: Channel, deliveries: Delivery[]): Promise<ReceivedMessage[]> {
    const received: ReceivedMessage[] = [];
    for (const delivery of deliveries) {
      const decoded = decodeBody(delivery.body);
      const id = delivery.messageId ?? `${this.nextId()}-unnamed`;
      if (!decoded.ok) {
        await this.deadLetterUndecodable(stream, group, channel, delivery, id, decoded.reason);
        continue;
      }
      this.pending.add(id, { channel, deliveryTag: delivery.deliveryTag, queue, consumer, body: delivery.body });
      received.push({ id, stream, envelope: decoded.envelope, deliveryCount: deliveryCountOf(delivery.headers as Record<string, unknown> | undefined, delivery.redelivered) });
    }
    return received;
  }

  private async deadLetterUndecodable(stream: string, group: string, channel: Channel, delivery: Delivery, id: string, reason: string): Promise<void> {
    const error = `UndecodableEntryError: message ${id} of stream "${stream}" cannot be decoded: ${reason}`;
    this.log.warn('undecodable message moved to the dead-letter queue', { stream, group, id, reason });
    try {
      await this.topology.ensureDeadLetterQueue(stream);
      const headers = letterHeaders({ originalId: id, stream, group, error, deliveryCount: deliveryCountOf(delivery.headers as Record<string, unknown> | undefined, delivery.redelivered) });
      const body = Buffer.from(rawText(delivery.body));
      await this.publisher.publish('', this.names.deadLetterQueue(stream), body, { messageId: this.nextId(), durable: true, headers });
      channel.basicAck({ deliveryTag: delivery.deliveryTag });
    } catch (err) {
      // Requeued: the queue's delivery limit dead-letters it in the end if this keeps failing.
      this.log.error('could not dead-letter an undecodable message; it goes back to its queue', { stream, group, id, error: err });
      if (channel.active) channel.basicNack({ deliveryTag: delivery.deliveryTag, requeue: true });
    }
  }
}
