/**
 * The Redis Streams broker (`provider = "redis"`): XADD with approximate MAXLEN trimming, batches
 * in one pipeline, consumer groups read with XREADGROUP on connections of their own when they
 * block, XAUTOCLAIM for abandoned messages and a `<stream>:dlq` dead-letter stream (where entries
 * read without a valid envelope go too, one by one, so they never hold up a batch). During an
 * outage every call fails at once with BrokerUnavailableError while ioredis reconnects behind it.
 */
import { Redis, type RedisOptions } from 'ioredis';
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
import { RedisBlockingPool } from './redis-blocking-pool.js';
import { readRedisBrokerSettings, type RedisBrokerSettings } from './redis-broker-settings.js';
import { explainRedisError, isRedisConnectionError, isRedisCredentialsError, notReadyError } from './redis-connection-errors.js';
import { RedisDeadLetterQueue } from './redis-dead-letter-queue.js';
import { envelopeFields, type RawEntry } from './redis-entry-codec.js';
import { repliesOrThrow, type PipelineResults } from './redis-replies.js';
import { nackPending, REDIS_SCRIPTS, removeIdleConsumers } from './redis-scripts.js';
import { decodeOrDeadLetter } from './redis-undecodable-entries.js';

/** Reconnect back-off ceiling: a restarted Redis is picked up within this long. */
const MAX_RECONNECT_DELAY_MS = 2_000;
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
    BrokerCapability.DISTRIBUTED;

  readonly streamPrefix: string;
  readonly maxlen: number;
  private readonly config: RedisBrokerSettings;
  private readonly client: Redis;
  private readonly pool: RedisBlockingPool;
  private readonly deadLetters: RedisDeadLetterQueue;
  private readonly log: Logger;
  private readonly knownStreams = new Set<string>();
  private lastConnectionError: Error | undefined;
  private down = false;

  constructor(name: string, settings: BrokerSettings) {
    super(name, settings);
    this.config = readRedisBrokerSettings(name, settings);
    this.streamPrefix = this.config.streamPrefix;
    this.maxlen = this.config.maxlen;
    this.log = getLogger('broker.redis', { broker: name, uri: this.config.maskedUri });
    this.client = this.watch(new Redis(this.config.uri, this.options('commands')), true);
    this.pool = new RedisBlockingPool(() => this.watch(new Redis(this.config.uri, this.options('blocking')), false));
    this.deadLetters = new RedisDeadLetterQueue(() => this.client, (stream) => this.key(stream), this.maxlen);
  }

  /** The Redis key of a stream: `stream_prefix` + the stream name. */
  key(stream: string): string {
    return `${this.streamPrefix}${stream}`;
  }

  protected async doConnect(): Promise<void> {
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
  }

  /** Refused credentials are a settings mistake waiting cannot fix; anything else stays an outage. */
  private connectFailure(cause: unknown): unknown {
    if (!isRedisCredentialsError(cause)) return cause;
    this.client.disconnect();
    return new BrokerSettingsError(this.name, 'uri', `Redis at ${this.config.maskedUri} refused the credentials (${this.redact(cause.message)}); fix the user and password in uri`);
  }

  protected async doPublish(message: OutgoingMessage): Promise<string> {
    this.knownStreams.add(message.stream);
    return (await this.client.call('XADD', this.key(message.stream), ...this.trim(), '*', ...envelopeFields(message.envelope))) as string;
  }

  protected override async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    const pipeline = this.client.pipeline();
    for (const { stream, envelope } of messages) {
      this.knownStreams.add(stream);
      pipeline.call('XADD', this.key(stream), ...this.trim(), '*', ...envelopeFields(envelope));
    }
    const results = ((await pipeline.exec()) ?? []) as [Error | null, unknown][];
    const errors = results.map(([error]) => error).filter((error): error is Error => error !== null);
    if (errors.length === 0) return results.map(([, id]) => id as string);
    const outage = errors.find(isRedisConnectionError);
    if (outage) throw outage;
    const outcome: PublishResult[] = results.map(([error, id], i) =>
      error ? { ok: false, error: this.translate(`publish to stream "${messages[i]!.stream}"`, error) } : { ok: true, id: id as string },
    );
    throw new BrokerBatchError(this.name, outcome);
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
    const read = () =>
      options.blockMs > 0
        ? this.pool.with((connection) => connection.call('XREADGROUP', ...args))
        : this.client.call('XREADGROUP', ...args);
    let reply: XReadGroupReply;
    try {
      reply = (await read()) as XReadGroupReply;
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOGROUP'))) throw error;
      await this.doEnsureGroup(stream, group);
      reply = (await read()) as XReadGroupReply;
    }
    const entries = reply?.[0]?.[1] ?? [];
    return decodeOrDeadLetter(stream, group, entries, entries.map(() => 1), this.deadLetters, this.log);
  }

  protected override async doAck(stream: string, group: string, ids: readonly string[]): Promise<number> {
    return (await this.client.call('XACK', this.key(stream), group, ...ids)) as number;
  }

  protected override async doNack(stream: string, group: string, id: string): Promise<void> {
    await nackPending(this.client, this.key(stream), group, id);
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
    const counts = await this.deliveryCounts(stream, group, claimed.map(([id]) => id));
    return decodeOrDeadLetter(stream, group, claimed, counts, this.deadLetters, this.log);
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

  protected override async doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    const key = this.key(stream);
    let groups: unknown[][];
    try {
      groups = (await this.client.call('XINFO', 'GROUPS', key)) as unknown[][];
    } catch (error) {
      if (error instanceof Error && /no such key/i.test(error.message)) return { pending: 0, lag: 0, exists: false };
      throw error;
    }
    const info = groups.map(replyPairs).find((g) => g.name === group);
    if (!info) return { pending: 0, lag: 0, exists: false };
    let lag = info.lag === null || info.lag === undefined ? null : Number(info.lag);
    if (lag === null) {
      // Redis cannot count the lag after trimming or deletions (and before 7.0); nothing is
      // undelivered when the group has seen the stream's last id.
      const streamInfo = replyPairs((await this.client.call('XINFO', 'STREAM', key)) as unknown[]);
      if (streamInfo['last-generated-id'] === info['last-delivered-id']) lag = 0;
    }
    return { pending: Number(info.pending), lag, exists: true };
  }

  protected async doPing(): Promise<boolean> {
    return (await this.client.ping()) === 'PONG';
  }

  protected async doInfo(): Promise<Record<string, unknown>> {
    const streams = [...this.knownStreams].sort();
    const pipeline = this.client.pipeline().info('server');
    for (const stream of streams) pipeline.xlen(this.key(stream));
    const [server, ...lengths] = repliesOrThrow((await pipeline.exec()) as PipelineResults, isRedisConnectionError);
    const version = /redis_version:([^\r\n]+)/.exec(String(server))?.[1] ?? 'unknown';
    return {
      uri: this.config.maskedUri,
      serverVersion: version,
      streamPrefix: this.streamPrefix,
      maxlen: this.maxlen,
      claimIdleMs: this.claimIdleMs,
      blockingConnections: this.pool.size,
      streams: Object.fromEntries(streams.map((stream, i) => [stream, { length: Number(lengths[i]) }])),
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

  private trim(): (string | number)[] {
    return this.maxlen > 0 ? ['MAXLEN', '~', this.maxlen] : [];
  }

  private options(role: 'commands' | 'blocking'): RedisOptions {
    return {
      lazyConnect: true,
      // Fail at once while disconnected, and flush in-flight commands on the first drop,
      // so callers see BrokerUnavailableError instead of hanging until Redis returns.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: this.config.connectTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
      connectionName: `protean-ts:${this.name}:${role}`,
      scripts: REDIS_SCRIPTS,
      ...(role === 'blocking' ? { blockingTimeout: BLOCKING_GRACE_MS, blockingTimeoutGrace: BLOCKING_GRACE_MS } : {}),
    };
  }

  /** Logs connection loss and recovery once each (not every retry) for the main connection. */
  private watch(connection: Redis, main: boolean): Redis {
    connection.on('error', (error: Error) => {
      if (!main) return;
      this.lastConnectionError = error;
      if (this.down || this.state === 'closed') return;
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

/** `[k1, v1, k2, v2, …]` (an XINFO reply) as an object. */
function replyPairs(reply: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  return out;
}
