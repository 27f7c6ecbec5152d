/**
 * The `[brokers.<name>]` table of a `provider = "redis"` broker, read and checked once, with
 * the URI kept alongside its masked form for logs and errors.
 */
import {
  BrokerSettingsError,
  BrokerSettingsReader,
  CLOUDEVENTS_BROKER_KEYS,
  cloudEventsKeyProblems,
  MAX_TIMER_MS,
  maskUri,
  readMessageFormatSettings,
  type BrokerSettings,
  type MessageFormatSettings,
  type ProviderSettingsSpec,
} from '@protean-ts/core';

/** Soft target of entries per stream: entries beyond it are trimmed once every group acked them; 0 = never. */
export const REDIS_DEFAULT_MAXLEN = 100_000;
/** Length past which the oldest entries are trimmed even unconsumed (logged as lost); 0 = no limit. */
export const REDIS_DEFAULT_MAXLEN_HARD = 0;
export const REDIS_DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** Longest stream length settable: far beyond what one Redis holds, well inside a safe integer. */
const MAX_STREAM_LENGTH = 1_000_000_000;
const streamLength = { kind: 'integer', min: 0, max: MAX_STREAM_LENGTH } as const;
const connectTimeout = { kind: 'integer', min: 1, max: MAX_TIMER_MS } as const;

/** What `uri` must look like; the config loader checks it, so `config check` reports a wrong one. */
const REDIS_URI = { kind: 'uri', schemes: ['redis', 'rediss'], example: 'redis://localhost:6379/0' } as const;

/** The keys of a redis `[brokers.<name>]` table, declared to the config loader at registration. */
export const REDIS_BROKER_SETTINGS: ProviderSettingsSpec = {
  keys: {
    uri: REDIS_URI,
    stream_prefix: { kind: 'string' },
    maxlen: streamLength,
    maxlen_hard: streamLength,
    connect_timeout_ms: connectTimeout,
    ...CLOUDEVENTS_BROKER_KEYS,
  },
  rules: cloudEventsKeyProblems,
  required: ['uri'],
};

export const REDIS_SETTING_KEYS = Object.keys(REDIS_BROKER_SETTINGS.keys) as readonly string[];

export interface RedisBrokerSettings {
  uri: string;
  maskedUri: string;
  /** Secrets that must never appear in logs or errors (the password, raw and decoded). */
  secrets: string[];
  streamPrefix: string;
  maxlen: number;
  maxlenHard: number;
  connectTimeoutMs: number;
  /** `message_format` and the CloudEvents keys (docs/cloudevents.md). */
  messageFormat: MessageFormatSettings;
}

export function readRedisBrokerSettings(name: string, settings: BrokerSettings): RedisBrokerSettings {
  const reader = new BrokerSettingsReader(name, settings);
  reader.onlyKeys(REDIS_SETTING_KEYS);
  const url = reader.uri('uri', REDIS_URI.schemes);
  const uri = settings.uri as string;
  const maxlen = reader.integer('maxlen', REDIS_DEFAULT_MAXLEN, 0, MAX_STREAM_LENGTH);
  const maxlenHard = reader.integer('maxlen_hard', REDIS_DEFAULT_MAXLEN_HARD, 0, MAX_STREAM_LENGTH);
  if (maxlenHard > 0 && maxlenHard < maxlen) {
    throw new BrokerSettingsError(name, 'maxlen_hard', `must be 0 (no hard limit) or at least maxlen (${maxlen}), got ${maxlenHard}`);
  }
  const secrets = url.password ? [...new Set([url.password, safeDecode(url.password)])] : [];
  return {
    uri,
    maskedUri: maskUri(uri),
    secrets,
    streamPrefix: reader.string('stream_prefix', ''),
    maxlen,
    maxlenHard,
    connectTimeoutMs: reader.integer('connect_timeout_ms', REDIS_DEFAULT_CONNECT_TIMEOUT_MS, connectTimeout.min, connectTimeout.max),
    messageFormat: readMessageFormatSettings(name, settings),
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
