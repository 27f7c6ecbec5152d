/**
 * The shared half of every broker adapter. Public methods check arguments and capabilities,
 * connect on first use, refuse work after close and sort adapter errors into outages
 * (`BrokerUnavailableError`, callers pause) and message-level failures (`BrokerOperationError`).
 * Adapters implement the small `do*` methods and say which errors mean "unreachable".
 */
import { BrokerArgumentChecks } from './broker-argument-checks.js';
import { BrokerCapabilityError } from './broker-capability.error.js';
import { BrokerClosedError } from './broker-closed.error.js';
import { BrokerOperationError } from './broker-operation.error.js';
import { BrokerSettingsReader } from '../config/broker-settings-reader.js';
import { DEFAULT_CLAIM_IDLE_MS, DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS, DEFAULT_DEAD_LETTER_LIST_COUNT, type BrokerState } from './broker-defaults.js';
import { messageOf, translateBrokerError } from './translate-broker-error.js';
import { MAX_TIMER_MS } from '../config/config-schema.js';
import type { BrokerSettings } from '../config/config-types.js';
import { inSpan } from '../tracing/in-span.js';
import { SpanNames } from '../tracing/span-names.js';
import { brokerPublishSpan } from './broker-publish-span.js';
import {
  BrokerCapability,
  type Broker,
  type BrokerCapabilityName,
  type BrokerInfo,
  type DeadConsumerReclaimOptions,
  type DeadLetter,
  type GroupProgress,
  type GroupStatus,
  type OutgoingMessage,
  type ReadOptions,
  type ReceivedMessage,
} from './broker.js';

export { DEFAULT_CLAIM_IDLE_MS, DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS, DEFAULT_DEAD_LETTER_LIST_COUNT, type BrokerState } from './broker-defaults.js';

export abstract class BaseBroker implements Broker {
  abstract readonly provider: string;
  abstract readonly capabilities: number;
  readonly claimIdleMs: number;

  protected readonly check: BrokerArgumentChecks;
  private currentState: BrokerState = 'disconnected';
  private connecting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    readonly name: string,
    protected readonly settings: BrokerSettings,
  ) {
    this.check = new BrokerArgumentChecks(typeof name === 'string' && name ? name : '?');
    this.check.name('constructor', 'name', name);
    this.claimIdleMs = new BrokerSettingsReader(name, settings).integer('claim_idle_ms', DEFAULT_CLAIM_IDLE_MS, 0, MAX_TIMER_MS);
  }

  get state(): BrokerState {
    return this.currentState;
  }

  has(capability: BrokerCapabilityName): boolean {
    const flag = BrokerCapability[capability];
    if (flag === undefined) {
      this.check.fail('has', 'capability', `must be one of ${Object.keys(BrokerCapability).join(', ')}, got ${JSON.stringify(capability)}`);
    }
    return (this.capabilities & flag) !== 0;
  }

  async connect(): Promise<void> {
    if (this.currentState === 'closed') throw new BrokerClosedError(this.name, 'connect');
    if (this.currentState === 'connected') return;
    this.connecting ??= this.guard('connect', () => this.doConnect())
      .then(() => {
        if (this.currentState !== 'closed') this.currentState = 'connected';
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }

  async publish(message: OutgoingMessage): Promise<string> {
    this.check.outgoing('publish', 'message', message);
    await this.ready('publish', 'PUBLISH');
    return inSpan(
      SpanNames.brokerPublish,
      () => brokerPublishSpan(this, [message]),
      () => this.guard(`publish to stream "${message.stream}"`, () => this.doPublish(message)),
    );
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    if (!Array.isArray(messages)) this.check.fail('publishBatch', 'messages', 'must be an array of { stream, envelope }');
    messages.forEach((message, i) => this.check.outgoing('publishBatch', `messages[${i}]`, message));
    await this.ready('publishBatch', 'PUBLISH');
    if (messages.length === 0) return [];
    const ids = await inSpan(
      SpanNames.brokerPublish,
      () => brokerPublishSpan(this, messages),
      () => this.guard(`publish a batch of ${messages.length} messages`, () => this.doPublishBatch(messages)),
    );
    if (ids.length !== messages.length) {
      throw new BrokerOperationError(this.name, 'publish a batch', `the adapter returned ${ids.length} ids for ${messages.length} messages`);
    }
    return ids;
  }

  async ensureGroup(stream: string, group: string): Promise<void> {
    this.check.name('ensureGroup', 'stream', stream);
    this.check.name('ensureGroup', 'group', group);
    await this.ready('ensureGroup', 'CONSUMER_GROUPS');
    await this.guard(`create group "${group}" on stream "${stream}"`, () => this.doEnsureGroup(stream, group));
  }

  async read(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    this.check.name('read', 'stream', stream);
    this.check.name('read', 'group', group);
    this.check.name('read', 'consumer', consumer);
    this.check.count('read', 'options.count', options?.count);
    this.check.count('read', 'options.blockMs', options?.blockMs, 0);
    await this.ready('read', 'CONSUMER_GROUPS');
    try {
      return await this.guard(`read stream "${stream}" for group "${group}"`, () => this.doRead(stream, group, consumer, options));
    } catch (err) {
      // A read cut short by close() is the normal way a worker stops, not a failure.
      if (this.currentState === 'closed') return [];
      throw err;
    }
  }

  async ack(stream: string, group: string, ids: readonly string[]): Promise<number> {
    this.check.name('ack', 'stream', stream);
    this.check.name('ack', 'group', group);
    this.check.ids('ack', ids);
    await this.ready('ack', 'ACK_NACK');
    if (ids.length === 0) return 0;
    return this.guard(`ack ${ids.length} messages on stream "${stream}" for group "${group}"`, () => this.doAck(stream, group, ids));
  }

  async nack(stream: string, group: string, id: string): Promise<void> {
    this.check.name('nack', 'stream', stream);
    this.check.name('nack', 'group', group);
    this.check.name('nack', 'id', id);
    await this.ready('nack', 'ACK_NACK');
    await this.guard(`nack message ${id} on stream "${stream}" for group "${group}"`, () => this.doNack(stream, group, id));
  }

  async reclaim(stream: string, group: string, consumer: string, minIdleMs: number, count: number): Promise<ReceivedMessage[]> {
    this.check.name('reclaim', 'stream', stream);
    this.check.name('reclaim', 'group', group);
    this.check.name('reclaim', 'consumer', consumer);
    this.check.count('reclaim', 'minIdleMs', minIdleMs, 0);
    this.check.count('reclaim', 'count', count);
    await this.ready('reclaim', 'RECLAIM_PENDING');
    return this.guard(`reclaim pending messages on stream "${stream}" for group "${group}"`, () => this.doReclaim(stream, group, consumer, minIdleMs, count));
  }

  async touchPending(stream: string, group: string, consumer: string, ids: readonly string[]): Promise<number> {
    this.check.name('touchPending', 'stream', stream);
    this.check.name('touchPending', 'group', group);
    this.check.name('touchPending', 'consumer', consumer);
    ids.forEach((id, i) => this.check.name('touchPending', `ids[${i}]`, id));
    await this.ready('touchPending', 'RECLAIM_PENDING');
    if (ids.length === 0) return 0;
    return this.guard(`touch ${ids.length} pending messages on stream "${stream}" for group "${group}"`, () =>
      this.doTouchPending(stream, group, consumer, ids),
    );
  }

  async reportAlive(consumer: string, ttlMs: number): Promise<void> {
    this.check.name('reportAlive', 'consumer', consumer);
    this.check.count('reportAlive', 'ttlMs', ttlMs);
    await this.ready('reportAlive', 'LIVENESS');
    await this.guard(`report consumer "${consumer}" alive`, () => this.doReportAlive(consumer, ttlMs));
  }

  async reclaimFromDeadConsumers(
    stream: string,
    group: string,
    consumer: string,
    count: number,
    options: DeadConsumerReclaimOptions = {},
  ): Promise<ReceivedMessage[]> {
    this.check.name('reclaimFromDeadConsumers', 'stream', stream);
    this.check.name('reclaimFromDeadConsumers', 'group', group);
    this.check.name('reclaimFromDeadConsumers', 'consumer', consumer);
    this.check.count('reclaimFromDeadConsumers', 'count', count);
    const minIdleMs = options?.minIdleMs ?? DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS;
    this.check.count('reclaimFromDeadConsumers', 'options.minIdleMs', minIdleMs, 0);
    await this.ready('reclaimFromDeadConsumers', 'LIVENESS');
    return this.guard(`reclaim messages of dead consumers on stream "${stream}" for group "${group}"`, () =>
      this.doReclaimFromDeadConsumers(stream, group, consumer, count, minIdleMs),
    );
  }

  async deadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    this.check.name('deadLetter', 'stream', stream);
    this.check.name('deadLetter', 'group', group);
    this.check.received('deadLetter', 'message', message);
    if (typeof error !== 'string') this.check.fail('deadLetter', 'error', 'must be a string describing why the message failed');
    await this.ready('deadLetter', 'DEAD_LETTER_QUEUE');
    await this.guard(`dead-letter message ${message.id} of stream "${stream}"`, () => this.doDeadLetter(stream, group, message, error));
  }

  async listDeadLetters(stream: string, options: { count?: number } = {}): Promise<DeadLetter[]> {
    this.check.name('listDeadLetters', 'stream', stream);
    const count = options.count ?? DEFAULT_DEAD_LETTER_LIST_COUNT;
    this.check.count('listDeadLetters', 'options.count', count);
    await this.ready('listDeadLetters', 'DEAD_LETTER_QUEUE');
    return this.guard(`list dead letters of stream "${stream}"`, () => this.doListDeadLetters(stream, count));
  }

  async replayDeadLetters(stream: string, ids?: readonly string[]): Promise<number> {
    this.check.name('replayDeadLetters', 'stream', stream);
    if (ids !== undefined) this.check.ids('replayDeadLetters', ids);
    await this.ready('replayDeadLetters', 'DEAD_LETTER_QUEUE');
    if (ids !== undefined && ids.length === 0) return 0;
    return this.guard(`replay dead letters of stream "${stream}"`, () => this.doReplayDeadLetters(stream, ids));
  }

  async purgeDeadLetters(stream: string): Promise<number> {
    this.check.name('purgeDeadLetters', 'stream', stream);
    await this.ready('purgeDeadLetters', 'DEAD_LETTER_QUEUE');
    return this.guard(`purge dead letters of stream "${stream}"`, () => this.doPurgeDeadLetters(stream));
  }

  async removeIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    this.check.name('removeIdleConsumers', 'stream', stream);
    this.check.name('removeIdleConsumers', 'group', group);
    this.check.count('removeIdleConsumers', 'idleMs', idleMs, 0);
    await this.ready('removeIdleConsumers', 'CONSUMER_GROUPS');
    const removed = await this.guard(`remove idle consumers of group "${group}" on stream "${stream}"`, () =>
      this.doRemoveIdleConsumers(stream, group, idleMs),
    );
    return [...removed].sort();
  }

  async releaseGroup(stream: string, group: string): Promise<void> {
    this.check.name('releaseGroup', 'stream', stream);
    this.check.name('releaseGroup', 'group', group);
    // Closing gives everything back anyway.
    if (this.currentState === 'closed') return;
    await this.guard(`release group "${group}" on stream "${stream}"`, () => this.doReleaseGroup(stream, group));
  }

  async groupStatus(stream: string, group: string): Promise<GroupStatus> {
    this.check.name('groupStatus', 'stream', stream);
    this.check.name('groupStatus', 'group', group);
    await this.ready('groupStatus', 'CONSUMER_GROUPS');
    return this.guard(`read the status of group "${group}" on stream "${stream}"`, () => this.doGroupStatus(stream, group));
  }

  async groupProgress(stream: string, group: string, through?: string): Promise<GroupProgress> {
    this.check.name('groupProgress', 'stream', stream);
    this.check.name('groupProgress', 'group', group);
    if (through !== undefined) this.check.name('groupProgress', 'through', through);
    await this.ready('groupProgress', 'CONSUMER_GROUPS');
    return this.guard(`read the progress of group "${group}" on stream "${stream}"`, () => this.doGroupProgress(stream, group, through));
  }

  async ping(): Promise<boolean> {
    if (this.currentState === 'closed') return false;
    try {
      await this.connect();
      return await this.doPing();
    } catch {
      return false;
    }
  }

  async info(): Promise<BrokerInfo> {
    const base = { provider: this.provider, name: this.name };
    if (this.currentState === 'closed') return { ...base, connected: false, details: { state: 'closed' } };
    try {
      await this.connect();
      return { ...base, connected: await this.doPing(), details: await this.guard('read broker info', () => this.doInfo()) };
    } catch (err) {
      return { ...base, connected: false, details: { target: this.describeTarget(), error: this.redact(messageOf(err)) } };
    }
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      this.currentState = 'closed';
      await this.doClose();
      await this.connecting?.catch(() => undefined);
    })();
    return this.closing;
  }

  /** Where the broker points, safe to log (a masked URI); shown in outage errors. */
  protected describeTarget(): string {
    return this.provider;
  }

  /** Removes secrets from an adapter's error text; adapters with credentials override it. */
  protected redact(text: string): string {
    return text;
  }

  /** True when `error` means the broker cannot be reached rather than that it refused a message. */
  protected isConnectionError(_error: unknown): boolean {
    return false;
  }

  protected abstract doConnect(): Promise<void>;
  protected abstract doPublish(message: OutgoingMessage): Promise<string>;
  protected abstract doPing(): Promise<boolean>;
  protected abstract doInfo(): Promise<Record<string, unknown>>;
  protected abstract doClose(): Promise<void>;

  /** Adapters that take deliveries in ahead of reads give them back here; nothing to do otherwise. */
  protected async doReleaseGroup(_stream: string, _group: string): Promise<void> {}

  /** One message after another; adapters that can batch in one round trip override it. */
  protected async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    const ids: string[] = [];
    for (const message of messages) ids.push(await this.doPublish(message));
    return ids;
  }

  // Adapters override the methods of the capabilities they declare; the base never calls the
  // others because `ready()` checks the capability first.
  protected doEnsureGroup(_stream: string, _group: string): Promise<void> {
    return this.lacks('CONSUMER_GROUPS', 'ensureGroup');
  }
  protected doRead(_stream: string, _group: string, _consumer: string, _options: ReadOptions): Promise<ReceivedMessage[]> {
    return this.lacks('CONSUMER_GROUPS', 'read');
  }
  protected doAck(_stream: string, _group: string, _ids: readonly string[]): Promise<number> {
    return this.lacks('ACK_NACK', 'ack');
  }
  protected doNack(_stream: string, _group: string, _id: string): Promise<void> {
    return this.lacks('ACK_NACK', 'nack');
  }
  protected doReclaim(_stream: string, _group: string, _consumer: string, _minIdleMs: number, _count: number): Promise<ReceivedMessage[]> {
    return this.lacks('RECLAIM_PENDING', 'reclaim');
  }
  protected doReportAlive(_consumer: string, _ttlMs: number): Promise<void> {
    return this.lacks('LIVENESS', 'reportAlive');
  }
  protected doReclaimFromDeadConsumers(_stream: string, _group: string, _consumer: string, _count: number, _minIdleMs: number): Promise<ReceivedMessage[]> {
    return this.lacks('LIVENESS', 'reclaimFromDeadConsumers');
  }
  protected doTouchPending(_stream: string, _group: string, _consumer: string, _ids: readonly string[]): Promise<number> {
    return this.lacks('RECLAIM_PENDING', 'touchPending');
  }
  protected doRemoveIdleConsumers(_stream: string, _group: string, _idleMs: number): Promise<string[]> {
    return this.lacks('CONSUMER_GROUPS', 'removeIdleConsumers');
  }
  protected doGroupStatus(_stream: string, _group: string): Promise<GroupStatus> {
    return this.lacks('CONSUMER_GROUPS', 'groupStatus');
  }
  /** Without entry ids to compare: settled only when nothing is undelivered or pending at all. */
  protected async doGroupProgress(stream: string, group: string, _through: string | undefined): Promise<GroupProgress> {
    const status = await this.doGroupStatus(stream, group);
    return { exists: status.exists, head: null, consumers: null, settled: status.pending === 0 && status.lag === 0 };
  }
  protected doDeadLetter(_stream: string, _group: string, _message: ReceivedMessage, _error: string): Promise<void> {
    return this.lacks('DEAD_LETTER_QUEUE', 'deadLetter');
  }
  protected doListDeadLetters(_stream: string, _count: number): Promise<DeadLetter[]> {
    return this.lacks('DEAD_LETTER_QUEUE', 'listDeadLetters');
  }
  protected doReplayDeadLetters(_stream: string, _ids: readonly string[] | undefined): Promise<number> {
    return this.lacks('DEAD_LETTER_QUEUE', 'replayDeadLetters');
  }
  protected doPurgeDeadLetters(_stream: string): Promise<number> {
    return this.lacks('DEAD_LETTER_QUEUE', 'purgeDeadLetters');
  }

  /** Runs an adapter call and translates whatever it throws. */
  protected async guard<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.translate(operation, err);
    }
  }

  /** Outage → BrokerUnavailableError; the broker's own errors pass; anything else → BrokerOperationError. */
  protected translate(operation: string, err: unknown): Error {
    return translateBrokerError(this.name, operation, err, {
      redact: (text) => this.redact(text),
      isConnectionError: (error) => this.isConnectionError(error),
      describeTarget: () => this.describeTarget(),
    });
  }

  private async ready(method: string, capability: BrokerCapabilityName): Promise<void> {
    if (this.currentState === 'closed') throw new BrokerClosedError(this.name, method);
    if (!this.has(capability)) throw new BrokerCapabilityError(this.name, this.provider, capability, method);
    if (this.currentState !== 'connected') await this.connect();
  }

  private lacks(capability: BrokerCapabilityName, method: string): Promise<never> {
    return Promise.reject(new BrokerCapabilityError(this.name, this.provider, capability, method));
  }
}
