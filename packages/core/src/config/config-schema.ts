/**
 * The shape of domain.toml as data: each key's type and range. Validation walks it to report
 * wrong types and unknown keys; the docs-coverage test and the CLI read the same tree.
 * Cross-key rules (provider names, broker references, conflicts) live in validate-config.ts.
 */

export type KeySpec =
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'integer'; min?: number; max?: number }
  | { kind: 'number'; min?: number; max?: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'stringList' }
  /** A table with known keys; `open` tables keep unknown (provider-specific) keys without warning. */
  | { kind: 'table'; keys: Record<string, KeySpec>; open?: boolean }
  /** A table of user-named tables (`[databases.<name>]`), each following `entry`. */
  | { kind: 'namedTables'; entry: KeySpec & { kind: 'table' } };

const positiveInt = { kind: 'integer', min: 1 } as const;
const nonNegativeInt = { kind: 'integer', min: 0 } as const;
const nonNegative = { kind: 'number', min: 0 } as const;

export const CONFIG_SCHEMA: KeySpec & { kind: 'table' } = {
  kind: 'table',
  keys: {
    module: { kind: 'string' },
    identity_strategy: { kind: 'enum', values: ['uuid', 'function'] },
    event_processing: { kind: 'enum', values: ['sync', 'async'] },
    command_processing: { kind: 'enum', values: ['sync', 'async'] },
    databases: {
      kind: 'namedTables',
      entry: {
        kind: 'table',
        open: true,
        keys: {
          provider: { kind: 'string' },
          database_uri: { kind: 'string' },
          managed: { kind: 'boolean' },
          pool_size: positiveInt,
        },
      },
    },
    brokers: {
      kind: 'namedTables',
      entry: { kind: 'table', open: true, keys: { provider: { kind: 'string' }, uri: { kind: 'string' } } },
    },
    event_store: {
      kind: 'table',
      open: true,
      keys: { provider: { kind: 'string' }, database_uri: { kind: 'string' } },
    },
    server: {
      kind: 'table',
      keys: {
        default_subscription_type: { kind: 'enum', values: ['stream', 'event_store'] },
        messages_per_tick: positiveInt,
        tick_interval: nonNegative,
        stream_subscription: {
          kind: 'table',
          keys: {
            blocking_timeout_ms: nonNegativeInt,
            max_retries: nonNegativeInt,
            retry_delay_seconds: nonNegative,
            enable_dlq: { kind: 'boolean' },
            concurrency: positiveInt,
            gap_timeout_seconds: nonNegative,
            accept_unsigned_envelopes: { kind: 'boolean' },
          },
        },
        health: {
          kind: 'table',
          keys: { host: { kind: 'string' }, port: { kind: 'integer', min: 0, max: 65535 } },
        },
        startup_timeout_seconds: nonNegative,
      },
    },
    enable_outbox: { kind: 'boolean' },
    inbox: {
      kind: 'table',
      keys: { enabled: { kind: 'boolean' }, database: { kind: 'string' }, retention_hours: nonNegative },
    },
    outbox: {
      kind: 'table',
      keys: {
        broker: { kind: 'string' },
        external_brokers: { kind: 'stringList' },
        messages_per_tick: positiveInt,
        tick_interval: nonNegative,
        retry: {
          kind: 'table',
          keys: {
            max_attempts: positiveInt,
            base_delay_seconds: nonNegative,
            max_backoff_seconds: nonNegative,
            backoff_multiplier: { kind: 'number', min: 1 },
            jitter: { kind: 'boolean' },
            jitter_factor: { kind: 'number', min: 0, max: 1 },
          },
        },
        cleanup: {
          kind: 'table',
          keys: {
            published_retention_hours: nonNegative,
            abandoned_retention_hours: nonNegative,
            cleanup_interval_ticks: positiveInt,
          },
        },
      },
    },
  },
};

/** Top-level keys; any other top-level table is an environment overlay (`[staging]`). */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(CONFIG_SCHEMA.keys);
