/**
 * The JetStream streams and durable consumers behind a NATS broker's streams and groups, created
 * once per process (idempotent on the server too), with one WARN per broker when a stream may
 * lose messages JetStream acknowledged (nats-durability.ts).
 */
import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { BrokerSettingsError, type Logger } from '@protean-ts/core';
import type { NatsBrokerSettings } from './nats-broker-settings.js';
import { isConsumerNotFound, isStreamNotFound } from './nats-dead-letters.js';
import { durabilityProblems, type StreamDurability } from './nats-durability.js';
import type { NatsNaming } from './nats-names.js';

export class NatsTopology {
  private readonly knownStreams = new Map<string, Promise<void>>();
  private readonly knownGroups = new Map<string, Promise<void>>();
  private durabilityWarned = false;

  constructor(
    private readonly brokerName: string,
    private readonly config: NatsBrokerSettings,
    private readonly naming: NatsNaming,
    /** The JetStream manager; throws while disconnected. */
    private readonly manager: () => JetStreamManager,
    private readonly log: Logger,
  ) {}

  ensureStreamOf(stream: string): Promise<void> {
    const names = this.naming.stream(stream);
    return this.ensureStream(names.stream, names.subject);
  }

  /** The consumer was deleted behind our back: the next `ensureGroupOf` creates it again. */
  forgetGroup(stream: string, group: string): void {
    this.knownGroups.delete(`${stream}\u0000${group}`);
  }

  /** Creates the JetStream stream once per process (idempotent on the server too). */
  ensureStream(name: string, subject: string): Promise<void> {
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
          this.brokerName,
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

  ensureGroupOf(stream: string, group: string): Promise<void> {
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
}
