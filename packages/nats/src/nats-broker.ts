/**
 * The NATS JetStream broker (`provider = "nats"`). Each protean stream is a JetStream stream on
 * one subject; each consumer group is a durable pull consumer with explicit acks, shared by every
 * worker of the group. Publishes carry the message id as `Nats-Msg-Id`, so a republish after an
 * outage is dropped by the server within the duplicate window. A worker that crashes holding
 * messages gets them redelivered by JetStream after `ack_wait`; a live one keeps them with
 * progress notes (see NatsHeldMessages). Dead letters go to a stream of their own.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import {
  BaseBroker,
  BrokerBatchError,
  BrokerCapability,
  BrokerSettingsError,
  getLogger,
  type BrokerSettings,
  type DeadLetter,
  type GroupLag,
  type GroupStatus,
  type Logger,
  type OutgoingMessage,
  type PublishResult,
  type ReadOptions,
  type ReceivedMessage,
} from '@protean-ts/core';
import { readNatsBrokerSettings, type NatsBrokerSettings } from './nats-broker-settings.js';
import { isNatsAuthError, isNatsConnectionError, NatsNotConnectedError } from './nats-connection-errors.js';
import { readNatsConsumerLag, readNatsGroupStatus } from './nats-group-backlog.js';
import { NatsConsumerMembers } from './nats-consumer-members.js';
import { NatsDeadLetters } from './nats-dead-letters.js';
import type { NatsDelivery } from './nats-delivery.js';
import { NatsArrivals } from './nats-arrivals.js';
import { NatsHeldMessages } from './nats-held-messages.js';
import { NatsNaming, type NatsStreamNames } from './nats-names.js';
import { NatsPuller } from './nats-pull.js';
import { natsMessageFormat, type NatsMessageFormat } from './nats-message-format.js';
import { NatsTopology } from './nats-topology.js';

/** Reconnect back-off: a restarted NATS is picked up within about half a second. */
const RECONNECT_WAIT_MS = 500;
/** nats-server's default `max_payload`, for a connection that has not reported its own. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
export { DEAD_LETTER_WRITE_DELIVERIES } from './nats-arrivals.js';
/** Extra wait past a pull's own expiry before a pull nobody answered counts as an outage. */
const PULL_GRACE_MS = 5_000;

export class NatsBroker extends BaseBroker {
  readonly provider = 'nats';
  readonly capabilities =
    BrokerCapability.PUBLISH |
    BrokerCapability.CONSUMER_GROUPS |
    BrokerCapability.ACK_NACK |
    BrokerCapability.BLOCKING_READ |
    BrokerCapability.DEAD_LETTER_QUEUE |
    BrokerCapability.DURABLE |
    BrokerCapability.DISTRIBUTED |
    BrokerCapability.CONSUMER_LAG;

  private readonly config: NatsBrokerSettings;
  private readonly naming: NatsNaming;
  private readonly log: Logger;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private jsm: JetStreamManager | null = null;
  private down = false;
  private readonly topology: NatsTopology;
  private readonly format: NatsMessageFormat;
  private readonly arrivals: NatsArrivals;
  private readonly held: NatsHeldMessages;
  private readonly puller: NatsPuller;
  private readonly members: NatsConsumerMembers;
  private readonly deadLetters: NatsDeadLetters;

  constructor(name: string, settings: BrokerSettings) {
    super(name, settings);
    this.config = readNatsBrokerSettings(name, settings);
    this.naming = new NatsNaming(this.config.streamPrefix, this.config.subjectPrefix);
    this.log = getLogger('broker.nats', { broker: name, uri: this.config.maskedUri });
    const connection = () => this.connection();
    this.held = new NatsHeldMessages(Math.max(this.claimIdleMs, this.config.ackWaitMs), Math.max(100, Math.floor(this.config.ackWaitMs / 3)), (reply) => {
      if (!this.down) this.nc?.publish(reply, '+WPI');
    });
    this.held.onBeat = () => void this.refreshMembers();
    this.puller = new NatsPuller(connection, PULL_GRACE_MS + this.config.requestTimeoutMs);
    this.members = new NatsConsumerMembers(connection, this.naming, this.config.ackWaitMs);
    this.deadLetters = new NatsDeadLetters(
      () => this.jetStream(),
      () => this.manager(),
      (stream, subject) => this.topology.ensureStream(stream, subject),
      this.config.requestTimeoutMs,
      () => this.nc?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES,
    );
    this.topology = new NatsTopology(name, this.config, this.naming, () => this.manager(), this.log);
    this.format = natsMessageFormat(this.config.messageFormat);
    const { config, naming, format, held, deadLetters, log } = this;
    this.arrivals = new NatsArrivals({ config, naming, format, held, deadLetters, log, connection, ackDelivery: (delivery) => this.ackDelivery(delivery) });
  }

  /** The JetStream names behind a protean stream (for operators and tests). */
  namesOf(stream: string): NatsStreamNames {
    return this.naming.stream(stream);
  }

  protected override describeTarget(): string {
    return `NATS at ${this.config.maskedUri}`;
  }

  protected override redact(text: string): string {
    return this.config.secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  }

  protected override isConnectionError(error: unknown): boolean {
    return isNatsConnectionError(error);
  }

  protected async doConnect(): Promise<void> {
    const { servers, tls, user, pass, token, connectTimeoutMs, requestTimeoutMs } = this.config;
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers,
        name: `protean-ts:${this.name}`,
        timeout: connectTimeoutMs,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: RECONNECT_WAIT_MS,
        ...(tls ? { tls: {} } : {}),
        ...(user !== undefined ? { user, pass } : {}),
        ...(token !== undefined ? { token } : {}),
      });
    } catch (err) {
      if (isNatsAuthError(err))
        throw new BrokerSettingsError(
          this.name,
          'uri',
          `NATS at ${this.config.maskedUri} refused the credentials: ${this.redact(String((err as Error).message))}`,
        );
      throw err;
    }
    if (this.state === 'closed') {
      await nc.close();
      return;
    }
    try {
      this.jsm = await jetstreamManager(nc, { timeout: requestTimeoutMs });
    } catch (err) {
      await nc.close();
      if (err instanceof Error && err.name === 'JetStreamNotEnabled') {
        throw new BrokerSettingsError(
          this.name,
          'uri',
          `NATS at ${this.config.maskedUri} has JetStream disabled; start nats-server with -js (or "jetstream {}" in its config)`,
        );
      }
      throw err;
    }
    this.nc = nc;
    this.js = jetstream(nc, { timeout: requestTimeoutMs });
    this.down = false;
    void this.watch(nc);
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' && !this.down) {
        this.down = true;
        this.log.warn('NATS connection lost; reconnecting in the background');
      } else if (status.type === 'reconnect') {
        this.down = false;
        this.log.info('NATS connection restored');
      }
    }
  }

  protected async doPublish(message: OutgoingMessage): Promise<string> {
    return (await this.publishOne(message)).id;
  }

  protected override async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    // Sent back to back on one connection, so each stream keeps the batch's order; the acks are awaited together.
    for (const stream of new Set(messages.map((m) => m.stream))) await this.topology.ensureStreamOf(stream);
    const settled = await Promise.allSettled(messages.map((message) => this.publishOne(message)));
    if (settled.every((s) => s.status === 'fulfilled')) return settled.map((s) => (s as PromiseFulfilledResult<{ id: string }>).value.id);
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failures.length === settled.length || failures.some((f) => isNatsConnectionError(f.reason))) throw failures[0]!.reason;
    const results: PublishResult[] = settled.map((s) =>
      s.status === 'fulfilled' ? { ok: true, id: s.value.id } : { ok: false, error: this.translate('publish', s.reason) },
    );
    throw new BrokerBatchError(this.name, results);
  }

  private async publishOne(message: OutgoingMessage): Promise<{ id: string }> {
    await this.topology.ensureStreamOf(message.stream);
    const names = this.naming.stream(message.stream);
    const { payload, headers } = this.format.encode(message.envelope);
    const ack = await this.jetStream().publish(names.subject, payload, {
      msgID: message.envelope.metadata.headers.id,
      timeout: this.config.requestTimeoutMs,
      ...(headers ? { headers } : {}),
    });
    return { id: String(ack.seq) };
  }

  protected override async doEnsureGroup(stream: string, group: string): Promise<void> {
    await this.topology.ensureGroupOf(stream, group);
  }

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    await this.topology.ensureGroupOf(stream, group);
    const names = this.naming.stream(stream);
    const durable = this.naming.durable(group);
    let deliveries = await this.pull(names.stream, durable, stream, group, options.count, 0);
    if (deliveries.length === 0 && options.blockMs > 0) {
      // Wait for one, then take what else is there without waiting: the read ends as soon as
      // something arrived, and no pull stays open on the server after it.
      deliveries = await this.pull(names.stream, durable, stream, group, 1, options.blockMs);
      if (deliveries.length > 0 && options.count > 1) deliveries.push(...(await this.pull(names.stream, durable, stream, group, options.count - 1, 0)));
    }
    const messages: ReceivedMessage[] = [];
    for (const delivery of deliveries) {
      const message = await this.arrivals.accept(stream, group, consumer, delivery);
      if (message) messages.push(message);
    }
    if (messages.length > 0) await this.members.touch(stream, group, consumer, this.held.count(stream, group, consumer));
    return messages;
  }

  private async pull(jsStream: string, durable: string, stream: string, group: string, batch: number, expiresMs: number): Promise<NatsDelivery[]> {
    this.assertUp();
    try {
      return await this.puller.pull(jsStream, durable, { batch, expiresMs });
    } catch (err) {
      // The consumer was deleted behind our back: forget it, so the next read creates it again.
      this.topology.forgetGroup(stream, group);
      throw err;
    }
  }

  protected override async doAck(stream: string, group: string, ids: readonly string[]): Promise<number> {
    this.assertUp();
    let acked = 0;
    const consumers = new Set<string>();
    await Promise.all(
      ids.map(async (id) => {
        const held = this.held.get(stream, group, id);
        if (!held) return;
        await this.ackDelivery(held.delivery);
        // Released only once JetStream confirmed: a lost ack leaves it held (and retried), never half-done.
        if (this.held.release(stream, group, id)) acked += 1;
        this.held.acked(held.consumer);
        consumers.add(held.consumer);
      }),
    );
    for (const consumer of consumers) await this.members.touch(stream, group, consumer, this.held.count(stream, group, consumer));
    return acked;
  }

  /** `+ACK` as a request: JetStream answers once the ack is stored (a lost ack would mean a redelivery). */
  private async ackDelivery(delivery: NatsDelivery): Promise<void> {
    await this.connection().request(delivery.reply, '+ACK', { timeout: this.config.requestTimeoutMs });
  }

  protected override async doNack(stream: string, group: string, id: string): Promise<void> {
    const held = this.held.release(stream, group, id);
    if (!held) return;
    this.assertUp();
    // Redelivered at once, to whichever worker pulls next; the delivery counts.
    this.connection().publish(held.delivery.reply, '-NAK');
    await this.connection().flush();
  }

  /**
   * A subscription loop of this process stops reading (its partition moved to another worker, or
   * it shuts down): what it still holds goes back to the group at once. That is a delivery whose
   * ack failed (handled, so the next reader skips it as a duplicate) or one no read took back.
   * Left held, the progress notes would keep it from JetStream's redelivery as long as this
   * worker acks anything else, and the group's new reader would never get it.
   */
  protected override async doReleaseGroup(stream: string, group: string): Promise<void> {
    const released = this.held.releaseGroup(stream, group);
    if (released.length === 0) return;
    this.assertUp();
    for (const held of released) this.connection().publish(held.delivery.reply, '-NAK');
    await this.connection().flush();
  }

  protected override async doDeadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    const held = this.held.get(stream, group, message.id);
    const payload = held ? new TextDecoder().decode(held.delivery.data) : JSON.stringify(message.envelope);
    await this.deadLetters.write(this.naming.stream(stream), {
      originalId: message.id,
      stream,
      group,
      error,
      failedAt: new Date().toISOString(),
      deliveryCount: message.deliveryCount,
      payload,
    });
    if (held) {
      await this.ackDelivery(held.delivery);
      this.held.release(stream, group, message.id);
    }
  }

  protected override doListDeadLetters(stream: string, count: number): Promise<DeadLetter[]> {
    return this.deadLetters.list(stream, this.naming.stream(stream), count);
  }

  protected override async doReplayDeadLetters(stream: string, ids: readonly string[] | undefined): Promise<number> {
    await this.topology.ensureStreamOf(stream);
    return this.deadLetters.replay(this.naming.stream(stream), ids);
  }

  protected override doPurgeDeadLetters(stream: string): Promise<number> {
    return this.deadLetters.purge(this.naming.stream(stream));
  }

  protected override doRemoveIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    this.assertUp();
    return this.members.removeIdle(stream, group, idleMs);
  }

  protected override doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    return readNatsGroupStatus(this.manager(), this.naming.stream(stream).stream, this.naming.durable(group));
  }

  async consumerLag(stream: string): Promise<GroupLag[]> {
    await this.connect();
    return this.guard(`read the consumer lag of stream "${stream}"`, () => readNatsConsumerLag(this.manager(), this.naming.stream(stream).stream));
  }

  protected async doPing(): Promise<boolean> {
    if (!this.nc || this.nc.isClosed() || this.down) return false;
    try {
      await this.nc.flush();
      return true;
    } catch {
      return false;
    }
  }

  protected async doInfo(): Promise<Record<string, unknown>> {
    const account = await this.manager().getAccountInfo();
    return {
      server: this.connection().info?.version,
      streams: account.streams,
      consumers: account.consumers,
      // Consumers of this process holding unacked deliveries.
      holders: this.held.holders().length,
      target: this.config.maskedUri,
    };
  }

  protected async doClose(): Promise<void> {
    const left = this.held.stop();
    this.puller.closeAll();
    const nc = this.nc;
    this.nc = null;
    if (!nc || nc.isClosed()) return;
    // Give back what this instance read and did not ack (read ahead, or a handler cut off), so
    // the group gets it again at once, as RabbitMQ does for a closed connection, instead of after
    // ack_wait. A crashed process cannot do this: then JetStream redelivers after ack_wait.
    if (!this.down && left.length > 0) {
      for (const held of left) nc.publish(held.delivery.reply, '-NAK');
      await nc.flush().catch(() => undefined);
    }
    await nc.close().catch(() => undefined);
  }

  private async refreshMembers(): Promise<void> {
    for (const { stream, group, consumer } of this.held.holders()) {
      await this.members.touch(stream, group, consumer, this.held.count(stream, group, consumer), false).catch(() => undefined);
    }
  }

  private assertUp(): void {
    if (this.down || !this.nc || this.nc.isClosed()) throw new NatsNotConnectedError();
  }

  private connection(): NatsConnection {
    if (!this.nc) throw new NatsNotConnectedError();
    return this.nc;
  }

  private jetStream(): JetStreamClient {
    this.assertUp();
    return this.js!;
  }

  private manager(): JetStreamManager {
    this.assertUp();
    return this.jsm!;
  }
}
