/**
 * Every default of domain.toml in one place. The loader deep-merges the user's file over
 * `defaultConfig()`, so code reading a `DomainConfig` never has to invent a fallback.
 * docs/configuration.md documents each key here; a unit test keeps the two in step.
 */
import type { DomainConfig, FlowControlSettings } from './config-types.js';

/** Keys every `[databases.<name>]` table gets when the user leaves them out. */
export const DATABASE_ENTRY_DEFAULTS = { managed: true, pool_size: 10 } as const;

/** What a `[server.flow_control."<subscription>"]` table leaves out: every feature off. */
export const FLOW_CONTROL_DEFAULTS: Readonly<FlowControlSettings> = Object.freeze({
  circuit_failure_threshold: 0,
  circuit_open_seconds: 30,
  circuit_errors: [],
  rate_limit_per_second: 0,
  rate_limit_burst: 1,
  max_concurrency: 0,
  concurrency_lease_seconds: 30,
  debounce_ms: 0,
});

const DEFAULTS: DomainConfig = {
  identity_strategy: 'uuid',
  event_processing: 'sync',
  command_processing: 'sync',
  databases: {
    default: { provider: 'memory', ...DATABASE_ENTRY_DEFAULTS },
  },
  brokers: {
    default: { provider: 'inline' },
  },
  server: {
    default_subscription_type: 'stream',
    messages_per_tick: 100,
    tick_interval: 1,
    stream_subscription: {
      blocking_timeout_ms: 5000,
      max_retries: 3,
      retry_delay_seconds: 1,
      enable_dlq: true,
      concurrency: 32,
      gap_timeout_seconds: 60,
      accept_unsigned_envelopes: false,
      batch_size: 1,
      batch_max_wait_ms: 20,
    },
    flow_control: {},
    event_store_subscription: { lease_seconds: 10, poll_interval_ms: 100 },
    health: { host: '127.0.0.1', port: 8080, metrics: true, metrics_path: '/metrics' },
    startup_timeout_seconds: 0,
    partition_lease_seconds: 10,
  },
  enable_outbox: true,
  inbox: { enabled: true, database: 'default', retention_hours: 168 },
  command_outcomes: { retention_hours: 24 },
  event_store: { provider: 'memory', database: 'default' },
  snapshot_threshold: 10,
  outbox: {
    broker: 'default',
    external_brokers: [],
    partitions: 1,
    messages_per_tick: 100,
    tick_interval: 1,
    lock_seconds: 30,
    max_consumer_lag: 0,
    lag_check_interval: 1,
    lanes: { enabled: false, names: ['backfill'], share: 0.25 },
    retry: {
      max_attempts: 5,
      base_delay_seconds: 1,
      max_backoff_seconds: 300,
      backoff_multiplier: 2,
      jitter: true,
      jitter_factor: 0.25,
      max_total_seconds: 3600,
    },
    cleanup: {
      published_retention_hours: 168,
      abandoned_retention_hours: 720,
      cleanup_interval_ticks: 86400,
    },
  },
};

/** A fresh, fully defaulted configuration; callers may mutate it freely. */
export function defaultConfig(): DomainConfig {
  return structuredClone(DEFAULTS);
}
