/**
 * The resolved configuration, keys in domain.toml's snake_case. The loader (config/) fills
 * every default, so code reading it never has to guess one. docs/configuration.md documents
 * each key; a test keeps the two in step.
 */

/** Settings of one `[databases.<name>]` table, as validated by the config loader. */
export interface DatabaseSettings {
  provider: string;
  database_uri?: string;
  managed: boolean;
  pool_size: number;
  [key: string]: unknown;
}

/** Settings of one `[brokers.<name>]` table: its provider, and the keys that provider reads. */
export interface BrokerSettings {
  provider: string;
  uri?: string;
  [key: string]: unknown;
}

export type ProcessingMode = 'sync' | 'async';
/** Where handlers read from: broker streams fed by the outbox, or the event store's categories. */
export type SubscriptionType = 'stream' | 'event_store';

/** Event-store subscriptions: how workers share them, and how often an idle one looks for new events. */
export interface EventStoreSubscriptionConfig {
  /** A worker reads a subscription's category while it holds its lease; a standby takes over this long after the holder stops renewing. */
  lease_seconds: number;
  /** Pause after a read that found nothing new. */
  poll_interval_ms: number;
}

export interface StreamSubscriptionConfig {
  blocking_timeout_ms: number;
  max_retries: number;
  retry_delay_seconds: number;
  enable_dlq: boolean;
  /** Partition keys one subscription handles at once in one process. */
  concurrency: number;
  /** How long a key's message waits for a predecessor that has not arrived before it is passed. */
  gap_timeout_seconds: number;
  /** Handle envelopes without a checksum (another producer's); by default they are dead-lettered. */
  accept_unsigned_envelopes: boolean;
  /** Messages of different keys handled in one database transaction (a savepoint each); 1 = each commits alone. */
  batch_size: number;
  /** How long a batch takes in messages, from its first; it commits once its messages are done. */
  batch_max_wait_ms: number;
}

/** The inbox: what subscriptions record, in the handler's transaction, to skip redeliveries. */
export interface InboxConfig {
  enabled: boolean;
  /** The `[databases.<name>]` holding the inbox tables (checkpoints per subscription and key). */
  database: string;
  /** Per-message records (messages without a position) and passed-position records are deleted after this long. */
  retention_hours: number;
}

export interface HealthConfig {
  host: string;
  port: number;
  /** Serve Prometheus metrics at `metrics_path` beside the health endpoints. */
  metrics: boolean;
  metrics_path: string;
}

/** Outcomes of commands sent with `awaitOutcome` or an `idempotencyKey`. */
export interface CommandOutcomesConfig {
  /** Records (and so idempotency keys) are deleted this long after the command was sent. */
  retention_hours: number;
}

/**
 * Flow control of one subscription (`[server.flow_control."<subscription>"]`): a circuit breaker,
 * a rate limit and a concurrency cap shared by all workers, and debouncing. Every key is optional
 * in domain.toml; `FLOW_CONTROL_DEFAULTS` fills the rest (each default leaves its feature off).
 */
export interface FlowControlSettings {
  /** Failures in a row of a counted error that open the circuit; 0: no circuit breaker. */
  circuit_failure_threshold: number;
  /** How long an open circuit waits before one message probes the handler again. */
  circuit_open_seconds: number;
  /** Error class names (the error's or a `cause`'s) that count; empty: every error a retry may fix. */
  circuit_errors: string[];
  /** Messages per second the subscription starts, across every worker; 0: no limit. */
  rate_limit_per_second: number;
  /** Messages that may start back to back before the rate applies (a burst). */
  rate_limit_burst: number;
  /** Messages handled at once by the subscription across every worker; 0: no cap beyond `concurrency` per process. */
  max_concurrency: number;
  /** A permit of a worker that dies is freed after this long (renewed every third of it while held). */
  concurrency_lease_seconds: number;
  /** Only the latest message of a key within this window is handled; earlier ones are acked as superseded. 0: off. */
  debounce_ms: number;
}

export interface ServerConfig {
  default_subscription_type: SubscriptionType;
  messages_per_tick: number;
  tick_interval: number;
  stream_subscription: StreamSubscriptionConfig;
  /** Per subscription name (its consumer group), only the keys set; see `FLOW_CONTROL_DEFAULTS`. */
  flow_control: Record<string, Partial<FlowControlSettings>>;
  event_store_subscription: EventStoreSubscriptionConfig;
  health: HealthConfig;
  /** Seconds the server waits for its databases and brokers at start before giving up; 0 waits forever. */
  startup_timeout_seconds: number;
  /**
   * How long a worker's hold on its stream partitions lasts unless renewed (`outbox.partitions`
   * > 1): a dead worker's partitions move to the others after about this long.
   */
  partition_lease_seconds: number;
}

export interface OutboxRetryConfig {
  max_attempts: number;
  base_delay_seconds: number;
  max_backoff_seconds: number;
  backoff_multiplier: number;
  jitter: boolean;
  jitter_factor: number;
  /** Seconds from a row's creation after which a failing row is abandoned; 0: no bound. */
  max_total_seconds: number;
}

export interface OutboxCleanupConfig {
  published_retention_hours: number;
  abandoned_retention_hours: number;
  cleanup_interval_ticks: number;
}

/**
 * Priority lanes (`[outbox.lanes]`, docs/flow-control.md): a message names its lane where it is
 * produced; with `enabled` each lane besides `live` has a stream of its own on the broker
 * (`<stream>:<lane>`), which subscriptions read beside the live one with a bounded share.
 */
export interface OutboxLanesConfig {
  /** Route messages of other lanes to their own streams; false: every lane shares the live stream. */
  enabled: boolean;
  /** The lanes messages may name besides `live` (always there). */
  names: string[];
  /** Each other lane runs at most `ceil(concurrency × share)` messages at once per subscription and worker (at least 1). */
  share: number;
}

export interface OutboxConfig {
  broker: string;
  external_brokers: string[];
  /**
   * Partitions of each stream on `broker`: a message goes to one by a hash of its partition key,
   * and each partition is read by one worker at a time. 1 (the default): no partitions, every
   * worker reads every stream and the inbox orders each key.
   */
  partitions: number;
  messages_per_tick: number;
  tick_interval: number;
  /** How long a claim holds its rows; renewed while they are being published. */
  lock_seconds: number;
  /**
   * Back-pressure: the relay to a broker holds back while a consumer group of a stream it publishes
   * to has more than this many messages not finished (undelivered plus unacked). 0: off.
   */
  max_consumer_lag: number;
  /** Seconds between lag checks while `max_consumer_lag` is on. */
  lag_check_interval: number;
  retry: OutboxRetryConfig;
  cleanup: OutboxCleanupConfig;
  lanes: OutboxLanesConfig;
}

/** Where event-sourced aggregates keep their events: the event store of one `[databases.<name>]`. */
export interface EventStoreConfig {
  /** The adapter; must be the provider of `database`. */
  provider: 'memory' | 'postgresql';
  /**
   * The `[databases.<name>]` whose event store is used (sharing its transactions); with
   * `database_uri`, the loader sets it to `event_store`, the entry it adds for that URI.
   */
  database: string;
  /** The store's own database, when it has one; the loader enters it as `[databases.event_store]`. */
  database_uri?: string;
}

export interface DomainConfig {
  /** Path of the module exporting the domain, relative to the config file. */
  module?: string;
  identity_strategy: 'uuid' | 'function';
  event_processing: ProcessingMode;
  command_processing: ProcessingMode;
  databases: Record<string, DatabaseSettings>;
  brokers: Record<string, BrokerSettings>;
  server: ServerConfig;
  /** Whether raised events go through the transactional outbox (on by default). */
  enable_outbox: boolean;
  outbox: OutboxConfig;
  inbox: InboxConfig;
  command_outcomes: CommandOutcomesConfig;
  event_store: EventStoreConfig;
  /** A load of an event-sourced aggregate that replayed at least this many events writes a snapshot. */
  snapshot_threshold: number;
}
