/**
 * The Redis Streams broker (`provider = "redis"`): plain XADD (batches in one pipeline) with a
 * trim script now and then that removes only entries every consumer group acked (`maxlen` is the
 * soft target, `maxlen_hard` the limit past which unconsumed entries go too, logged as lost),
 * consumer groups read with XREADGROUP on connections of their own when they block, XAUTOCLAIM for
 * abandoned messages and a `<stream>:dlq` dead-letter stream (where entries read without a valid
 * envelope go too, one by one, so they never hold up a batch). During an outage every call fails
 * at once with BrokerUnavailableError while ioredis reconnects behind it.
 */
import { Redis, type RedisOptions } from 'ioredis';
import {
  BaseBroker,
  BrokerCapability,
  BrokerSettingsError,
  getLogger,
  type BrokerSettings,
  type DeadLetter,
  type GroupLag,
  type GroupProgress,
  type GroupStatus,
  type Logger,
  type OutgoingMessage,
  type ReadOptions,
  type ReceivedMessage,
} from '@protean-ts/core';
import { RedisBlockingPool } from './redis-blocking-pool.js';
import { readRedisBrokerSettings, type RedisBrokerSettings } from './redis-broker-settings.js';
import { explainRedisError, isRedisConnectionError, isRedisCredentialsError, isRedisDatabaseIndexError, notReadyError } from './redis-connection-errors.js';
import { checkRedisDatabase } from './redis-database-check.js';
import { RedisDeadLetterQueue } from './redis-dead-letter-queue.js';
import type { RawEntry } from './redis-entry-codec.js';
import { redisEntryFormat, type RedisEntryFormat } from './redis-entry-format.js';
import { repliesOrThrow, type PipelineResults } from './redis-replies.js';
import { readConsumerLag } from './redis-consumer-lag.js';
import { readGroupProgress } from './redis-group-progress.js';
import { readGroupStatus } from './redis-group-status.js';
import { claimFromDeadConsumers, reportAlive } from './redis-liveness.js';
import { nackPending, REDIS_SCRIPTS, removeIdleConsumers, touchPending } from './redis-scripts.js';
import { streamDetails } from './redis-stream-details.js';
import { RedisStreamPublisher } from './redis-stream-publisher.js';
import type { TrimOutcome } from './redis-stream-trimming.js';
import { decodeOrDeadLetter } from './redis-undecodable-entries.js';

/**
 * Reconnect back-off ceiling: a restarted Redis is picked up within this long, so the server's
 * readiness follows it within about a second. A refused connect to a local port costs nothing.
 */
const MAX_RECONNECT_DELAY_MS = 500;
/** Extra wait past `blockMs` before a blocked read on a silently dead socket gives up. */
const BLOCKING_GRACE_MS = 10_000;
/** XAUTOCLAIM scans about 10 × COUNT pending entries per call; this bounds the calls per reclaim. */
const MAX_RECLAIM_ROUNDS = 10;

type XReadGroupReply = [key: string, entries: RawEntry[]][] | null;
type XAutoClaimReply = [next: string, entries: (RawEntry | null)[], deleted?: string[]];

export class RedisBroker extends BaseBroker {
  readonly provider = 'redis';
  readonly capabilities =
    BrokerCapability.PUBLISH |
    BrokerCapability.CONSUMER_GROUPS |
    BrokerCapability.ACK_NACK |
    BrokerCapability.BLOCKING_READ |
    BrokerCapability.DEAD_LETTER_QUEUE |
    BrokerCapability.RECLAIM_PENDING |
    BrokerCapability.DURABLE |
    BrokerCapability.DISTRIBUTED |
    BrokerCapability.LIVENESS |
    BrokerCapability.CONSUMER_LAG;

  readonly streamPrefix: string;
  readonly maxlen: number;
  readonly maxlenHard: number;
  private readonly config: RedisBrokerSettings;
  private readonly client: Redis;
  private readonly pool: RedisBlockingPool;
  private readonly deadLetters: RedisDeadLetterQueue;
  private readonly log: Logger;
  private readonly knownStreams = new Set<string>();
  private readonly format: RedisEntryFormat;
  private readonly publisher: RedisStreamPublisher;
  private lastConnectionError: Error | undefined;
  /** A settings mistake found while connecting (no such database): every later connect fails with it. */
  private refused: BrokerSettingsError | undefined;
  private down = false;

  constructor(name: string, settings: BrokerSettings) {
    super(name, settings);
    this.config = readRedisBrokerSettings(name, settings);
    this.streamPrefix = this.config.streamPrefix;
    this.maxlen = this.config.maxlen;
    this.maxlenHard = this.config.maxlenHard;
    this.log = getLogger('broker.redis', { broker: name, uri: this.config.maskedUri });
    this.client = this.watch(new Redis(this.config.uri, this.options('commands')), true);
    this.pool = new RedisBlockingPool(() => this.watch(new Redis(this.config.uri, this.options('blocking')), false));
    this.format = redisEntryFormat(this.config.messageFormat);
    this.deadLetters = new RedisDeadLetterQueue(
      () => this.client,
      (stream) => this.key(stream),
      this.format,
    );
    this.publisher = new RedisStreamPublisher({
      brokerName: name,
      client: () => this.client,
      key: (stream) => this.key(stream),
      format: this.format,
      maxlen: this.maxlen,
      maxlenHard: this.maxlenHard,
      log: this.log,
      redact: (text) => this.redact(text),
      translate: (operation, error) => this.translate(operation, error),
      knownStreams: this.knownStreams,
    });
  }

  /** The Redis key of a stream: `stream_prefix` + the stream name. */
  key(stream: string): string {
    return `${this.streamPrefix}${stream}`;
  }

  /**
   * Trims `stream` now, as publishing does every so often: entries beyond `maxlen` that every
   * group acked, then, past `maxlen_hard`, the oldest whatever their state (logged as lost).
   */
  async trimStream(stream: string): Promise<TrimOutcome> {
    this.check.name('trimStream', 'stream', stream);
    await this.connect();
    return this.guard(`trim stream "${stream}"`, () => this.publisher.trim(stream));
  }

  protected async doConnect(): Promise<void> {
    if (this.refused) throw this.refused;
    const status = this.client.status;
    if (status === 'ready') return;
    // Only a client that never connected (or was ended) may be started; otherwise ioredis is
    // already retrying and the caller should fail fast (with the reason of its last failure)
    // rather than queue behind it.
    if (status !== 'wait' && status !== 'end') throw this.connectFailure(this.lastConnectionError ?? notReadyError(status));
    this.lastConnectionError = undefined;
    try {
      await this.client.connect();
    } catch (error) {
      // ioredis rejects with "Connection is closed."; the socket error says why.
      throw this.connectFailure(this.lastConnectionError ?? error);
    }
    try {
      await checkRedisDatabase(this.client, this.name, this.config.maskedUri);
    } catch (error) {
      // A missing database is final: stop ioredis reconnecting (and so re-selecting) in the background.
      if (error instanceof BrokerSettingsError) {
        this.refused = error;
        this.client.disconnect();
      }
      throw error;
    }
  }

  /** Refused credentials are a settings mistake waiting cannot fix; anything else stays an outage. */
  private connectFailure(cause: unknown): unknown {
    if (!isRedisCredentialsError(cause)) return cause;
    this.client.disconnect();
    return new BrokerSettingsError(
      this.name,
      'uri',
      `Redis at ${this.config.maskedUri} refused the credentials (${this.redact(cause.message)}); fix the user and password in uri`,
    );
  }

  protected doPublish(message: OutgoingMessage): Promise<string> {
    return this.publisher.publish(message);
  }

  protected override doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    return this.publisher.publishBatch(messages);
  }

  protected override async doEnsureGroup(stream: string, group: string): Promise<void> {
    this.knownStreams.add(stream);
    try {
      // From id 0: a group created after messages were published still receives them.
      await this.client.call('XGROUP', 'CREATE', this.key(stream), group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
    }
  }

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    this.knownStreams.add(stream);
    const block = options.blockMs > 0 ? ['BLOCK', options.blockMs] : [];
    const args = ['GROUP', group, consumer, 'COUNT', options.count, ...block, 'STREAMS', this.key(stream), '>'];
    const read = () => (options.blockMs > 0 ? this.pool.with((connection) => connection.call('XREADGROUP', ...args)) : this.client.call('XREADGROUP', ...args));
    let reply: XReadGroupReply;
    try {
      reply = (await read()) as XReadGroupReply;
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOGROUP'))) throw error;
      await this.doEnsureGroup(stream, group);
      reply = (await read()) as XReadGroupReply;
    }
    const entries = reply?.[0]?.[1] ?? [];
    return decodeOrDeadLetter(
      stream,
      group,
      entries,
      entries.map(() => 1),
      this.deadLetters,
      this.log,
      this.format,
    );
  }

  protected override async doAck(stream: string, group: string, ids: readonly string[]): Promise<number> {
    return (await this.client.call('XACK', this.key(stream), group, ...ids)) as number;
  }

  protected override async doNack(stream: string, group: string, id: string): Promise<void> {
    await nackPending(this.client, this.key(stream), group, id);
  }

  protected override async doTouchPending(stream: string, group: string, consumer: string, ids: readonly string[]): Promise<number> {
    return Number(await touchPending(this.client, this.key(stream), group, consumer, ids));
  }

  protected override async doReclaim(stream: string, group: string, consumer: string, minIdleMs: number, count: number): Promise<ReceivedMessage[]> {
    const claimed: RawEntry[] = [];
    let cursor = '0-0';
    try {
      for (let round = 0; round < MAX_RECLAIM_ROUNDS && claimed.length < count; round += 1) {
        const args = [this.key(stream), group, consumer, minIdleMs, cursor, 'COUNT', count - claimed.length];
        const [next, entries] = (await this.client.call('XAUTOCLAIM', ...args)) as XAutoClaimReply;
        // Entries trimmed away while pending come back empty (Redis 6.2) or in `deleted` (7+).
        claimed.push(...entries.filter((entry): entry is RawEntry => Array.isArray(entry) && Array.isArray(entry[1])));
        if (next === '0-0') break;
        cursor = next;
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOGROUP')) return [];
      throw error;
    }
    if (claimed.length === 0) return [];
    const counts = await this.deliveryCounts(
      stream,
      group,
      claimed.map(([id]) => id),
    );
    return decodeOrDeadLetter(stream, group, claimed, counts, this.deadLetters, this.log, this.format);
  }

  protected override doReportAlive(consumer: string, ttlMs: number): Promise<void> {
    return reportAlive(this.client, this.livenessKey, consumer, ttlMs);
  }

  protected override async doReclaimFromDeadConsumers(
    stream: string,
    group: string,
    consumer: string,
    count: number,
    minIdleMs: number,
  ): Promise<ReceivedMessage[]> {
    const { entries, deliveryCounts } = await claimFromDeadConsumers(this.client, this.key(stream), this.livenessKey, group, consumer, count, minIdleMs);
    if (entries.length === 0) return [];
    return decodeOrDeadLetter(stream, group, entries, deliveryCounts, this.deadLetters, this.log, this.format);
  }

  protected override async doDeadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    await this.deadLetters.add(stream, group, message, error);
  }

  protected override doListDeadLetters(stream: string, count: number): Promise<DeadLetter[]> {
    return this.deadLetters.list(stream, count);
  }

  protected override doReplayDeadLetters(stream: string, ids: readonly string[] | undefined): Promise<number> {
    this.knownStreams.add(stream);
    return this.deadLetters.replay(stream, ids);
  }

  protected override doPurgeDeadLetters(stream: string): Promise<number> {
    return this.deadLetters.purge(stream);
  }

  protected override doRemoveIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    return removeIdleConsumers(this.client, this.key(stream), group, idleMs);
  }

  protected override doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    return readGroupStatus(this.client, this.key(stream), this.publisher.lostKey(stream), group);
  }

  protected override doGroupProgress(stream: string, group: string, through: string | undefined): Promise<GroupProgress> {
    return readGroupProgress(this.client, this.key(stream), group, through);
  }

  async consumerLag(stream: string): Promise<GroupLag[]> {
    await this.connect();
    return this.guard(`read the consumer lag of stream "${stream}"`, () => readConsumerLag(this.client, this.key(stream), this.publisher.lostKey(stream)));
  }

  protected async doPing(): Promise<boolean> {
    return (await this.client.ping()) === 'PONG';
  }

  protected async doInfo(): Promise<Record<string, unknown>> {
    const streams = [...this.knownStreams].sort();
    const pipeline = this.client.pipeline().info('server');
    for (const stream of streams) pipeline.xlen(this.key(stream)).hgetall(this.publisher.lostKey(stream));
    const [server, ...perStream] = repliesOrThrow((await pipeline.exec()) as PipelineResults, isRedisConnectionError);
    const version = /redis_version:([^\r\n]+)/.exec(String(server))?.[1] ?? 'unknown';
    return {
      uri: this.config.maskedUri,
      serverVersion: version,
      streamPrefix: this.streamPrefix,
      maxlen: this.maxlen,
      maxlenHard: this.maxlenHard,
      claimIdleMs: this.claimIdleMs,
      blockingConnections: this.pool.size,
      streams: Object.fromEntries(streams.map((stream, i) => [stream, streamDetails(perStream[2 * i], perStream[2 * i + 1])])),
    };
  }

  protected async doClose(): Promise<void> {
    this.pool.closeAll();
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Fall through: cut the connection instead.
      }
    }
    this.client.disconnect();
  }

  protected override describeTarget(): string {
    return this.config.maskedUri;
  }

  protected override redact(text: string): string {
    let safe = text.split(this.config.uri).join(this.config.maskedUri);
    for (const secret of this.config.secrets) safe = safe.split(secret).join('***');
    return safe;
  }

  protected override isConnectionError(error: unknown): boolean {
    return isRedisConnectionError(error);
  }

  protected override translate(operation: string, error: unknown): Error {
    return super.translate(operation, explainRedisError(error));
  }

  /** Delivery counts of just-claimed entries, from XPENDING, in one round trip. */
  private async deliveryCounts(stream: string, group: string, ids: string[]): Promise<number[]> {
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.call('XPENDING', this.key(stream), group, id, id, 1);
    const replies = repliesOrThrow((await pipeline.exec()) as PipelineResults, isRedisConnectionError);
    return replies.map((reply) => Number((reply as [string, string, number, number][])[0]?.[3] ?? 1));
  }

  /** The sorted set of consumers' liveness expiries, one per broker (consumer names are process-wide). */
  private get livenessKey(): string {
    return `${this.streamPrefix}protean:alive`;
  }

  private options(role: 'commands' | 'blocking'): RedisOptions {
    return {
      lazyConnect: true,
      // Fail at once while disconnected, and flush in-flight commands on the first drop,
      // so callers see BrokerUnavailableError instead of hanging until Redis returns.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: this.config.connectTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      connectionName: `protean-ts:${this.name}:${role}`,
      scripts: REDIS_SCRIPTS,
      ...(role === 'blocking' ? { blockingTimeout: BLOCKING_GRACE_MS, blockingTimeoutGrace: BLOCKING_GRACE_MS } : {}),
    };
  }

  /** Logs connection loss and recovery once each (not every retry) for the main connection. */
  private watch(connection: Redis, main: boolean): Redis {
    connection.on('error', (error: Error) => {
      // ioredis's own SELECT at connect: not an outage; connecting reports it (checkRedisDatabase).
      if (!main || isRedisDatabaseIndexError(error)) return;
      this.lastConnectionError = error;
      if (this.down || this.state === 'closed') return;
      // Credentials refused before the first connect: connect() reports that as a settings error.
      if (this.state === 'disconnected' && isRedisCredentialsError(error)) return;
      this.down = true;
      this.log.warn('Redis connection lost; retrying in the background', { error: this.redact(error.message) });
    });
    connection.on('ready', () => {
      if (!main || !this.down) return;
      this.down = false;
      this.log.info('Redis connection restored');
    });
    return connection;
  }
}
