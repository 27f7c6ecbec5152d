/**
 * The `[brokers.<name>]` table of a `provider = "redis"` broker, read and checked once, with
 * the URI kept alongside its masked form for logs and errors.
 */
import { BrokerSettingsReader, maskUri, type BrokerSettings } from '@protean-ts/core';

/** Entries kept per stream (approximate `MAXLEN ~`); 0 turns trimming off. */
export const REDIS_DEFAULT_MAXLEN = 100_000;
export const REDIS_DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export const REDIS_SETTING_KEYS = ['uri', 'stream_prefix', 'maxlen', 'connect_timeout_ms'] as const;

export interface RedisBrokerSettings {
  uri: string;
  maskedUri: string;
  /** Secrets that must never appear in logs or errors (the password, raw and decoded). */
  secrets: string[];
  streamPrefix: string;
  maxlen: number;
  connectTimeoutMs: number;
}

export function readRedisBrokerSettings(name: string, settings: BrokerSettings): RedisBrokerSettings {
  const reader = new BrokerSettingsReader(name, settings);
  reader.onlyKeys(REDIS_SETTING_KEYS);
  const url = reader.uri('uri', ['redis', 'rediss']);
  const uri = settings.uri as string;
  const secrets = url.password ? [...new Set([url.password, safeDecode(url.password)])] : [];
  return {
    uri,
    maskedUri: maskUri(uri),
    secrets,
    streamPrefix: reader.string('stream_prefix', ''),
    maxlen: reader.integer('maxlen', REDIS_DEFAULT_MAXLEN, 0),
    connectTimeoutMs: reader.integer('connect_timeout_ms', REDIS_DEFAULT_CONNECT_TIMEOUT_MS, 1),
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
