/**
 * The broker port. Adapters (inline in core, Redis in @protean-ts/redis, later RabbitMQ, NATS,
 * Kafka) implement the small `protected` methods; callers ask `has(capability)` instead of
 * checking an adapter's class, and the conformance suite picks its tests the same way.
 */
import type { BrokerSettings } from '../config/config-types.js';
import type { MessageEnvelope } from '../messages/envelope.js';

export { BrokerUnavailableError } from './broker-unavailable.error.js';

export const BrokerCapability = {
  PUBLISH: 1 << 0,
  CONSUMER_GROUPS: 1 << 1,
  ACK_NACK: 1 << 2,
  BLOCKING_READ: 1 << 3,
  DEAD_LETTER_QUEUE: 1 << 4,
  RECLAIM_PENDING: 1 << 5,
  /** Messages survive a restart of this process. */
  DURABLE: 1 << 6,
  /** Several processes can share it. */
  DISTRIBUTED: 1 << 7,
  /** `reportAlive` and `reclaimFromDeadConsumers`: dead consumers are detected by a heartbeat. */
  LIVENESS: 1 << 8,
  /** `consumerLag`: how far behind every consumer group of a stream is (the outbox relay's back-pressure). */
  CONSUMER_LAG: 1 << 9,
} as const;
export type BrokerCapabilityName = keyof typeof BrokerCapability;

export interface OutgoingMessage {
  stream: string;
  envelope: MessageEnvelope;
}

export interface ReceivedMessage {
  /** The broker's id for this delivery (Redis entry id, …), used to ack. */
  id: string;
  stream: string;
  envelope: MessageEnvelope;
  /** How many times it was delivered, when the broker knows. */
  deliveryCount: number;
}

export interface ReadOptions {
  count: number;
  /** Wait up to this long for messages when the broker can block; 0 returns at once. */
  blockMs: number;
}

export interface DeadConsumerReclaimOptions {
  /**
   * A dead consumer's messages are taken only once it has also not read or claimed for this
   * long (its idle time in the group), default `DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS` (1 s).
   */
  minIdleMs?: number;
}

export interface DeadLetter {
  /** Id of the entry in the dead-letter stream (`<stream>:dlq`); pass it to `replayDeadLetters`. */
  id: string;
  /** The id the message had in its own stream when it failed. */
  originalId: string;
  stream: string;
  group: string;
  /**
   * Null when the broker could not decode the entry into an envelope (written by a foreign
   * producer, or corrupted); `rawFields` then holds what the entry contained, and replaying
   * such a letter leaves it where it is.
   */
  envelope: MessageEnvelope | null;
  /** The undecodable entry's fields as the broker stored them, names and values alternating. */
  rawFields?: string[];
  error: string;
  failedAt: string;
  deliveryCount: number;
}

/** How far one consumer group is behind on one stream. */
export interface GroupStatus {
  /** Delivered to the group's consumers and not yet acked. */
  pending: number;
  /**
   * True when `pending` counts only the deliveries this process holds: the broker cannot report
   * what other connections hold unacked (RabbitMQ without `management_uri`). From a process
   * that does not consume, such as the CLI, the group's pending count is then unknown.
   */
  pendingLocalOnly?: boolean;
  /** Not yet delivered to the group; null when the broker cannot tell (then compare ids yourself). */
  lag: number | null;
  /** False when the stream or the group does not exist yet (pending and lag are then 0). */
  exists: boolean;
  /**
   * Entries the group had not consumed (undelivered, or delivered and unacked) that the broker
   * removed because the stream passed its hard length limit (Redis `maxlen_hard`), counted since
   * the stream was created. Present only when some were lost.
   */
  lostToTrimming?: number;
}

/** One consumer group of a stream and the messages it has not finished, as `consumerLag` reports it. */
export interface GroupLag {
  group: string;
  /** Not yet delivered to the group plus delivered and not yet acked. */
  behind: number;
}

/**
 * Where one consumer group stands against its stream's head, by entry id: what `status
 * --wait-drained` needs to tell "handled everything up to here" while new messages keep coming.
 */
export interface GroupProgress {
  /** False when the stream or the group does not exist yet. */
  exists: boolean;
  /** Id of the stream's newest entry now; null when the broker cannot tell (or the stream is missing). */
  head: string | null;
  /** Consumers registered in the group; null when the broker cannot tell. */
  consumers: number | null;
  /**
   * True when the group has delivered every entry up to `through` and none of those is still
   * pending (unacked). A broker that cannot compare ids answers whether the group has nothing
   * undelivered and nothing pending at all (stricter: it waits for the whole stream).
   */
  settled: boolean;
}

export interface BrokerInfo {
  provider: string;
  name: string;
  connected: boolean;
  details: Record<string, unknown>;
}

export interface Broker {
  readonly name: string;
  readonly provider: string;
  readonly capabilities: number;
  /**
   * `claim_idle_ms`: how long a delivered message may stay unacked before another consumer
   * should take it over; subscriptions pass it to `reclaim` as `minIdleMs`.
   */
  readonly claimIdleMs: number;
  has(capability: BrokerCapabilityName): boolean;

  /**
   * Connects; `BrokerUnavailableError` when the server is unreachable for now (worth retrying),
   * any other error when retrying cannot help (credentials, settings).
   */
  connect(): Promise<void>;
  publish(message: OutgoingMessage): Promise<string>;
  /** One round trip where the adapter can (a Redis pipeline); returns ids in input order. */
  publishBatch(messages: readonly OutgoingMessage[]): Promise<string[]>;
  /** Creates the group (and the stream) when missing, starting at the oldest retained message; idempotent. */
  ensureGroup(stream: string, group: string): Promise<void>;
  /**
   * Messages not yet delivered to `group`, which become pending for `consumer` until acked.
   * Creates the group when missing. Redelivery of pending messages goes through `reclaim`.
   */
  read(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]>;
  ack(stream: string, group: string, ids: readonly string[]): Promise<number>;
  /**
   * Gives the message up: it stays pending and the next `reclaim` in the group takes it at once,
   * whatever its `minIdleMs`. A no-op when the message is no longer pending.
   */
  nack(stream: string, group: string, id: string): Promise<void>;
  /**
   * Resets the idle time of messages `consumer` still holds without counting a delivery, so no
   * reclaim takes them while they wait their turn in a live consumer. Only entries pending for
   * `consumer` are touched; returns how many were.
   */
  touchPending(stream: string, group: string, consumer: string, ids: readonly string[]): Promise<number>;
  /** Takes over messages another consumer left pending longer than `minIdleMs`. */
  reclaim(stream: string, group: string, consumer: string, minIdleMs: number, count: number): Promise<ReceivedMessage[]>;
  /**
   * Liveness heartbeat: `consumer` (a process-wide consumer name, the same in every group and
   * stream of this broker) is alive for the next `ttlMs`. Call it every ttlMs/3 or so; a
   * consumer whose last report has expired counts as dead for `reclaimFromDeadConsumers`.
   */
  reportAlive(consumer: string, ttlMs: number): Promise<void>;
  /**
   * Takes over (for `consumer`) up to `count` pending messages of the group's dead consumers:
   * those that reported alive at least once, whose last report has expired, and that have been
   * idle in the group for `options.minIdleMs`. A consumer that never reported is never taken
   * from here (the normal `reclaim` after `claim_idle_ms` covers it), nor is `consumer` itself.
   * Returned like `reclaim`: oldest first per dead consumer, deliveryCount up by one, entries
   * that cannot be decoded dead-lettered on the way. [] when the stream or group is missing.
   */
  reclaimFromDeadConsumers(stream: string, group: string, consumer: string, count: number, options?: DeadConsumerReclaimOptions): Promise<ReceivedMessage[]>;
  /** Moves a pending message to `<stream>:dlq` and acks it, atomically. */
  deadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void>;
  listDeadLetters(stream: string, options?: { count?: number }): Promise<DeadLetter[]>;
  /** Publishes dead letters back to their stream and removes them; returns how many. */
  replayDeadLetters(stream: string, ids?: readonly string[]): Promise<number>;
  purgeDeadLetters(stream: string): Promise<number>;
  /**
   * Deletes the group's consumers that have nothing pending and have not read or reclaimed for
   * `idleMs` or longer (the same measure as reclaim's `minIdleMs`, so a consumer whose messages
   * were all just reclaimed with it qualifies), and returns their names, sorted. One with pending
   * messages is never removed (they would be lost to the group): `reclaim` them first. Restarted
   * workers get new consumer names, so without this the stopped ones pile up in every group.
   * A removed consumer that reads again simply comes back. [] when the stream or group is missing.
   */
  removeIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]>;
  /**
   * This process stops reading `group` on `stream` for now (a stream partition moved to another
   * worker): deliveries the adapter took in ahead of a read and no read returned yet go back to
   * the group at once (RabbitMQ's consumer prefetch). Messages a read returned are not touched:
   * ack or nack them first. A no-op where reads hold nothing between calls; the next read resumes.
   */
  releaseGroup(stream: string, group: string): Promise<void>;
  /** Pending and undelivered counts of a group (test mode's drain check, status commands). */
  groupStatus(stream: string, group: string): Promise<GroupStatus>;
  /** The group's position against the stream's head; `through` (an entry id, e.g. an earlier `head`) is what `settled` answers about. */
  groupProgress(stream: string, group: string, through?: string): Promise<GroupProgress>;
  /**
   * With `CONSUMER_LAG`: every consumer group reading `stream` that the broker can list, each with
   * how many messages it has not finished; [] when the stream or its groups do not exist. The
   * outbox relay holds back while one of them is past `outbox.max_consumer_lag`.
   */
  consumerLag?(stream: string): Promise<GroupLag[]>;
  /** True when the broker answers; false (never a throw) during an outage or after close. */
  ping(): Promise<boolean>;
  info(): Promise<BrokerInfo>;
  /** Releases connections and wakes blocked reads (they return []); idempotent. */
  close(): Promise<void>;
}

export type BrokerFactory = (name: string, settings: BrokerSettings) => Broker;
