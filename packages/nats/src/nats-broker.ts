/**
 * The NATS JetStream broker (`provider = "nats"`). Each protean stream is a JetStream stream on
 * one subject; each consumer group is a durable pull consumer with explicit acks, shared by every
 * worker of the group. Publishes carry the message id as `Nats-Msg-Id`, so a republish after an
 * outage is dropped by the server within the duplicate window. A worker that crashes holding
 * messages gets them redelivered by JetStream after `ack_wait`; a live one keeps them with
 * progress notes (see NatsHeldMessages). Dead letters go to a stream of their own.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
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
import { readNatsBrokerSettings, type NatsBrokerSettings } from './nats-broker-settings.js';
import { isNatsAuthError, isNatsConnectionError, NatsNotConnectedError } from './nats-connection-errors.js';
import { NatsConsumerMembers } from './nats-consumer-members.js';
import { isConsumerNotFound, isStreamNotFound, NatsDeadLetters } from './nats-dead-letters.js';
import type { NatsDelivery } from './nats-delivery.js';
import { decodeEnvelope } from './nats-envelope.js';
import { NatsHeldMessages } from './nats-held-messages.js';
import { NatsNaming, type NatsStreamNames } from './nats-names.js';
import { NatsPuller } from './nats-pull.js';
import { durabilityProblems, type StreamDurability } from './nats-durability.js';

/** Reconnect back-off: a restarted NATS is picked up within about half a second. */
const RECONNECT_WAIT_MS = 500;
/** nats-server's default `max_payload`, for a connection that has not reported its own. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
/**
 * Deliveries of a message bound for the dead-letter stream whose letter could not be written
 * before it is terminated without one (with `max_deliver` lower, at its last delivery).
 */
export const DEAD_LETTER_WRITE_DELIVERIES = 5;
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
    BrokerCapability.DISTRIBUTED;

  private readonly config: NatsBrokerSettings;
  private readonly naming: NatsNaming;
  private readonly log: Logger;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private jsm: JetStreamManager | null = null;
  private down = false;
  private readonly knownStreams = new Map<string, Promise<void>>();
  private readonly knownGroups = new Map<string, Promise<void>>();
  private readonly held: NatsHeldMessages;
  private readonly puller: NatsPuller;
  private readonly members: NatsConsumerMembers;
  private readonly deadLetters: NatsDeadLetters;
  private durabilityWarned = false;

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
      (stream, subject) => this.ensureStream(stream, subject),
      this.config.requestTimeoutMs,
      () => this.nc?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES,
    );
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
    return (await this.publishOne(message, JSON.stringify(message.envelope))).id;
  }

  protected override async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    // Sent back to back on one connection, so each stream keeps the batch's order; the acks are awaited together.
    for (const stream of new Set(messages.map((m) => m.stream))) await this.ensureStreamOf(stream);
    const settled = await Promise.allSettled(messages.map((message) => this.publishOne(message, JSON.stringify(message.envelope))));
    if (settled.every((s) => s.status === 'fulfilled')) return settled.map((s) => (s as PromiseFulfilledResult<{ id: string }>).value.id);
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failures.length === settled.length || failures.some((f) => isNatsConnectionError(f.reason))) throw failures[0]!.reason;
    const results: PublishResult[] = settled.map((s) =>
      s.status === 'fulfilled' ? { ok: true, id: s.value.id } : { ok: false, error: this.translate('publish', s.reason) },
    );
    throw new BrokerBatchError(this.name, results);
  }

  private async publishOne(message: OutgoingMessage, payload: string): Promise<{ id: string }> {
    await this.ensureStreamOf(message.stream);
    const names = this.naming.stream(message.stream);
    const ack = await this.jetStream().publish(names.subject, payload, {
      msgID: message.envelope.metadata.headers.id,
      timeout: this.config.requestTimeoutMs,
    });
    return { id: String(ack.seq) };
  }

  protected override async doEnsureGroup(stream: string, group: string): Promise<void> {
    await this.ensureGroupOf(stream, group);
  }

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    await this.ensureGroupOf(stream, group);
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
      const message = await this.accept(stream, group, consumer, delivery);
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
      this.knownGroups.delete(`${stream}\u0000${group}`);
      throw err;
    }
  }

  /**
   * Decodes a delivery; one that is not an envelope, or was delivered `max_deliver` times, goes to
   * the DLQ here, raw. Never throws for one message: when its letter cannot be written it is left
   * for a redelivery, and at its last one terminated with one ERROR naming it (see letterless()).
   */
  private async accept(stream: string, group: string, consumer: string, delivery: NatsDelivery): Promise<ReceivedMessage | null> {
    const decoded = decodeEnvelope(delivery.data);
    const { maxDeliver } = this.config;
    if (decoded.envelope && (maxDeliver === 0 || delivery.deliveryCount <= maxDeliver)) {
      this.held.hold(stream, group, consumer, delivery);
      return { id: String(delivery.seq), stream, envelope: decoded.envelope, deliveryCount: delivery.deliveryCount };
    }
    const id = String(delivery.seq);
    const error = decoded.envelope
      ? `delivered ${delivery.deliveryCount} times without an ack (max_deliver = ${maxDeliver})`
      : `UndecodableEntryError: message ${id} of stream "${stream}" (group "${group}") cannot be decoded: ${decoded.error}`;
    const where = { stream, group, id, deliveryCount: delivery.deliveryCount, ...(decoded.envelope ? {} : { reason: decoded.error }) };
    try {
      await this.deadLetters.write(this.naming.stream(stream), {
        originalId: id,
        stream,
        group,
        error,
        failedAt: new Date().toISOString(),
        deliveryCount: delivery.deliveryCount,
        payload: decoded.envelope ? decoded.text : null,
        ...(decoded.envelope ? {} : { rawFields: ['data', decoded.text] }),
      });
      // A retried write after a lost ack is one letter (its msgID), so a failed ack is only redelivered.
      await this.ackDelivery(delivery);
    } catch (err) {
      await this.letterless(delivery, where, err);
      return null;
    }
    this.log.warn(
      decoded.envelope ? 'message moved to the dead-letter stream: max_deliver reached' : 'undecodable message moved to the dead-letter stream',
      where,
    );
    return null;
  }

  /** A message bound for the DLQ whose letter JetStream refused: redelivered after ack_wait, up to a bound; then terminated. */
  private async letterless(delivery: NatsDelivery, where: Record<string, unknown>, err: unknown): Promise<void> {
    const { maxDeliver } = this.config;
    const last = maxDeliver === 0 ? DEAD_LETTER_WRITE_DELIVERIES : Math.min(DEAD_LETTER_WRITE_DELIVERIES, maxDeliver + 1);
    // An outage is no reason to give up on it: the delivery comes back once NATS does.
    if (delivery.deliveryCount < last || isNatsConnectionError(err)) {
      this.log.error('could not dead-letter a message; JetStream redelivers it after ack_wait for another try', { ...where, error: err });
      return;
    }
    // +TERM: JetStream never delivers it again; it stays in the stream under its sequence until the stream's limits remove it.
    try {
      await this.connection().request(delivery.reply, '+TERM', { timeout: this.config.requestTimeoutMs });
    } catch (termError) {
      this.log.error('could not dead-letter a message, nor terminate it; JetStream redelivers it after ack_wait', { ...where, error: termError });
      return;
    }
    this.log.error('message dropped: it could not be dead-lettered on any of its deliveries; terminated so it does not loop', {
      ...where,
      deadLetterError: err,
      hint: `the message stays in its JetStream stream as sequence ${String(where.id)} until the stream's limits remove it; fix what makes dead-lettering fail (see deadLetterError)`,
    });
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
    await this.ensureStreamOf(stream);
    return this.deadLetters.replay(this.naming.stream(stream), ids);
  }

  protected override doPurgeDeadLetters(stream: string): Promise<number> {
    return this.deadLetters.purge(this.naming.stream(stream));
  }

  protected override doRemoveIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    this.assertUp();
    return this.members.removeIdle(stream, group, idleMs);
  }

  protected override async doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    try {
      const info = await this.manager().consumers.info(this.naming.stream(stream).stream, this.naming.durable(group));
      return { pending: info.num_ack_pending, lag: info.num_pending, exists: true };
    } catch (err) {
      if (isStreamNotFound(err) || isConsumerNotFound(err)) return { pending: 0, lag: 0, exists: false };
      throw err;
    }
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

  private ensureStreamOf(stream: string): Promise<void> {
    const names = this.naming.stream(stream);
    return this.ensureStream(names.stream, names.subject);
  }

  /** Creates the JetStream stream once per process (idempotent on the server too). */
  private ensureStream(name: string, subject: string): Promise<void> {
    let known = this.knownStreams.get(name);
    if (!known) {
      known = this.createStream(name, subject).catch((err: unknown) => {
        this.knownStreams.delete(name);
        throw err;
      });
      this.knownStreams.set(name, known);
    }
    return known;
  }

  private async createStream(name: string, subject: string): Promise<void> {
    this.assertUp();
    const jsm = this.manager();
    try {
      this.checkDurability(name, (await jsm.streams.info(name)).config);
      return;
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
    }
    const { maxMsgs, maxAgeMs, duplicateWindowMs, replicas } = this.config;
    try {
      const created = await jsm.streams.add({
        name,
        subjects: [subject],
        storage: StorageType.File,
        num_replicas: replicas,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
        max_msgs: maxMsgs === 0 ? -1 : maxMsgs,
        max_age: maxAgeMs * 1_000_000,
        duplicate_window: duplicateWindowMs * 1_000_000,
      });
      this.checkDurability(name, created.config);
    } catch (err) {
      const message = String((err as Error).message);
      if (replicas > 1 && /replicas/i.test(message))
        throw new BrokerSettingsError(
          this.name,
          'replicas',
          `is ${replicas}, and the NATS server cannot create stream ${name} with it (${message}); replicas above 1 need a JetStream cluster of at least that many servers`,
        );
      // Another process created it between our info and add.
      if (!/already in use/i.test(message)) throw err;
    }
  }

  /** One WARN per broker when a stream it uses may lose messages JetStream acknowledged (nats-durability.ts). */
  private checkDurability(stream: string, config: StreamDurability): void {
    if (this.durabilityWarned) return;
    const problems = durabilityProblems(config, this.config.serverSyncAlways);
    if (problems.length === 0) return;
    this.durabilityWarned = true;
    this.log.warn(`NATS stream ${stream} may lose messages JetStream acknowledged, which the outbox has then marked published: ${problems.join('; ')}`, {
      stream,
      storage: config.storage,
      replicas: config.num_replicas,
      serverSyncAlways: this.config.serverSyncAlways,
    });
  }

  private ensureGroupOf(stream: string, group: string): Promise<void> {
    const key = `${stream}\u0000${group}`;
    let known = this.knownGroups.get(key);
    if (!known) {
      known = this.createGroup(stream, group).catch((err: unknown) => {
        this.knownGroups.delete(key);
        throw err;
      });
      this.knownGroups.set(key, known);
    }
    return known;
  }

  private async createGroup(stream: string, group: string): Promise<void> {
    await this.ensureStreamOf(stream);
    const names = this.naming.stream(stream);
    const durable = this.naming.durable(group);
    const jsm = this.manager();
    try {
      await jsm.consumers.info(names.stream, durable);
      return;
    } catch (err) {
      if (!isConsumerNotFound(err)) throw err;
    }
    const { ackWaitMs, maxDeliver } = this.config;
    // Creating a durable with the same config is idempotent on the server; a new one starts at the oldest message.
    await jsm.consumers.add(names.stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ackWaitMs * 1_000_000,
      // One delivery past max_deliver, which the adapter itself dead-letters on arrival.
      max_deliver: maxDeliver === 0 ? -1 : maxDeliver + 1,
      max_ack_pending: -1,
    });
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
