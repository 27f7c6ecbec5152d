/**
 * The shape of domain.toml as data: each key's type and range. Validation walks it to report
 * wrong types and unknown keys; the docs-coverage test and the CLI read the same tree.
 * Cross-key rules (provider names, broker references, conflicts) live in validate-config.ts.
 */

export type KeySpec =
  /** `format`: a text the value must match, with what it must be in words (e.g. "a plain PostgreSQL identifier"). */
  | { kind: 'string'; format?: { pattern: RegExp; expected: string } }
  | { kind: 'boolean' }
  /** Numbers always carry both bounds: a value that large or small is a typo, never a setting. */
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  /** `refused`: values the schema knows but nothing implements yet, each with the reason given to the user. */
  | { kind: 'enum'; values: readonly string[]; refused?: Readonly<Record<string, string>> }
  | { kind: 'stringList' }
  /** An address to listen on: an IP address or a hostname. */
  | { kind: 'host' }
  /** A connection URI of one of `schemes`, with a usable host and port (check-uri.ts); `example` shows the form. */
  | { kind: 'uri'; schemes: readonly string[]; example: string }
  /** A file path relative to domain.toml: neither blank nor holding a NUL character. */
  | { kind: 'path'; example: string }
  /** A key nothing reads yet: any value is an error saying why, so no setting is accepted without effect. */
  | { kind: 'refused'; reason: string }
  /**
   * A table with known keys; any other key is warned about and dropped. `providerKeys`: the
   * table's `provider` adds the keys its adapter declares (see `registerDatabaseProvider`).
   */
  | { kind: 'table'; keys: Record<string, KeySpec>; providerKeys?: ProviderSection }
  /** A table of user-named tables (`[databases.<name>]`), each following `entry`. */
  | { kind: 'namedTables'; entry: KeySpec & { kind: 'table' } };

export type ProviderSection = 'databases' | 'brokers';

/** The longest delay Node's timers honour (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
/** `MAX_TIMER_MS` in whole seconds: the bound of every duration in seconds that ends in a timer. */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);
/** Retention periods are compared with timestamps, not timers: a century is the sane limit. */
export const MAX_RETENTION_HOURS = 100 * 365 * 24;
/** Counts of messages, retries and ticks: beyond a million it is a typo. */
export const MAX_COUNT = 1_000_000;

const count = (min: number, max = MAX_COUNT) => ({ kind: 'integer', min, max }) as const;
const seconds = { kind: 'number', min: 0, max: MAX_TIMER_SECONDS } as const;
const milliseconds = { kind: 'integer', min: 0, max: MAX_TIMER_MS } as const;
const hours = { kind: 'number', min: 0, max: MAX_RETENTION_HOURS } as const;
const positiveInt = count(1);

export const CONFIG_SCHEMA: KeySpec & { kind: 'table' } = {
  kind: 'table',
  keys: {
    module: { kind: 'path', example: 'src/domain.ts' },
    identity_strategy: { kind: 'enum', values: ['uuid', 'function'] },
    event_processing: { kind: 'enum', values: ['sync', 'async'] },
    command_processing: { kind: 'enum', values: ['sync', 'async'] },
    databases: {
      kind: 'namedTables',
      entry: {
        kind: 'table',
        providerKeys: 'databases',
        keys: {
          provider: { kind: 'string' },
          database_uri: { kind: 'string' },
          managed: { kind: 'boolean' },
          pool_size: count(1, 10_000),
        },
      },
    },
    brokers: {
      kind: 'namedTables',
      entry: {
        kind: 'table',
        providerKeys: 'brokers',
        // claim_idle_ms: read by every broker (BaseBroker); `uri` and the rest are the adapter's.
        keys: { provider: { kind: 'string' }, claim_idle_ms: milliseconds },
      },
    },
    event_store: {
      kind: 'table',
      keys: {
        // Which adapter holds the events; it must be the provider of `database` (event-store-config.ts).
        provider: { kind: 'enum', values: ['memory', 'postgresql'] },
        database: { kind: 'string' },
        // A database of the store's own, entered as [databases.event_store]; excludes `database`.
        // Its provider can only be postgresql (`memory` is refused with it), whose URIs these are.
        database_uri: { kind: 'uri', schemes: ['postgresql', 'postgres'], example: 'postgresql://app@localhost:5432/events' },
      },
    },
    snapshot_threshold: count(1),
    server: {
      kind: 'table',
      keys: {
        default_subscription_type: { kind: 'enum', values: ['stream', 'event_store'] },
        messages_per_tick: positiveInt,
        tick_interval: seconds,
        stream_subscription: {
          kind: 'table',
          keys: {
            blocking_timeout_ms: milliseconds,
            max_retries: count(0, 1000),
            retry_delay_seconds: seconds,
            enable_dlq: { kind: 'boolean' },
            concurrency: count(1, 10_000),
            gap_timeout_seconds: seconds,
            accept_unsigned_envelopes: { kind: 'boolean' },
            batch_size: count(1, 64),
            batch_max_wait_ms: { kind: 'integer', min: 0, max: 60_000 },
          },
        },
        flow_control: {
          kind: 'namedTables',
          entry: {
            kind: 'table',
            keys: {
              circuit_failure_threshold: count(0, 1000),
              circuit_open_seconds: { kind: 'number', min: 0.001, max: MAX_TIMER_SECONDS },
              circuit_errors: { kind: 'stringList' },
              rate_limit_per_second: { kind: 'number', min: 0, max: 100_000 },
              rate_limit_burst: count(1, 100_000),
              max_concurrency: count(0, 10_000),
              concurrency_lease_seconds: { kind: 'number', min: 1, max: 3600 },
              debounce_ms: { kind: 'integer', min: 0, max: 3_600_000 },
            },
          },
        },
        event_store_subscription: {
          kind: 'table',
          keys: {
            lease_seconds: { kind: 'number', min: 1, max: 3600 },
            poll_interval_ms: { kind: 'integer', min: 1, max: 60_000 },
          },
        },
        health: {
          kind: 'table',
          keys: { host: { kind: 'host' }, port: { kind: 'integer', min: 0, max: 65535 }, metrics: { kind: 'boolean' }, metrics_path: { kind: 'string' } },
        },
        startup_timeout_seconds: seconds,
        partition_lease_seconds: { kind: 'number', min: 1, max: 3600 },
      },
    },
    enable_outbox: { kind: 'boolean' },
    inbox: {
      kind: 'table',
      keys: { enabled: { kind: 'boolean' }, database: { kind: 'string' }, retention_hours: hours },
    },
    command_outcomes: {
      kind: 'table',
      keys: { retention_hours: { kind: 'number', min: 0.001, max: MAX_RETENTION_HOURS } },
    },
    outbox: {
      kind: 'table',
      keys: {
        broker: { kind: 'string' },
        external_brokers: { kind: 'stringList' },
        partitions: { kind: 'integer', min: 1, max: 1024 },
        lock_seconds: { kind: 'number', min: 1, max: 3600 },
        lanes: {
          kind: 'table',
          keys: { enabled: { kind: 'boolean' }, names: { kind: 'stringList' }, share: { kind: 'number', min: 0.01, max: 1 } },
        },
        messages_per_tick: positiveInt,
        tick_interval: seconds,
        max_consumer_lag: { kind: 'integer', min: 0, max: 1_000_000_000 },
        lag_check_interval: { kind: 'number', min: 0.01, max: 3600 },
        retry: {
          kind: 'table',
          keys: {
            max_attempts: count(1, 1000),
            base_delay_seconds: seconds,
            max_backoff_seconds: seconds,
            backoff_multiplier: { kind: 'number', min: 1, max: 100 },
            jitter: { kind: 'boolean' },
            jitter_factor: { kind: 'number', min: 0, max: 1 },
            max_total_seconds: { kind: 'number', min: 0, max: 2147483 },
          },
        },
        cleanup: {
          kind: 'table',
          keys: {
            published_retention_hours: hours,
            abandoned_retention_hours: hours,
            cleanup_interval_ticks: positiveInt,
          },
        },
      },
    },
  },
};

/**
 * Keys that name a connection: set without `provider`, `[databases.default]` / `[brokers.default]`
 * would silently run on the in-process default and ignore them, so that is an error.
 */
export const CONNECTION_KEYS: Readonly<Record<ProviderSection, readonly string[]>> = {
  databases: ['database_uri'],
  brokers: ['uri'],
};

/** Top-level keys; any other top-level table is an environment overlay (`[staging]`). */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(CONFIG_SCHEMA.keys);
