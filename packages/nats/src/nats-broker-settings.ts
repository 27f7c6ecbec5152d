/**
 * The `[brokers.<name>]` table of a `provider = "nats"` broker, read and checked once, with the
 * URI kept alongside its masked form for logs and errors.
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

export const NATS_DEFAULT_ACK_WAIT_MS = 30_000;
export const NATS_DEFAULT_DUPLICATE_WINDOW_MS = 120_000;
export const NATS_DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const NATS_DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
export const NATS_DEFAULT_SUBJECT_PREFIX = 'protean';

const MAX_MESSAGES = 1_000_000_000_000;
const duration = (min: number) => ({ kind: 'integer', min, max: MAX_TIMER_MS }) as const;

/** What `uri` must look like; the config loader checks it, so `config check` reports a wrong one. */
const NATS_URI = { kind: 'uri', schemes: ['nats', 'tls'], example: 'nats://localhost:4222' } as const;

/** The keys of a nats `[brokers.<name>]` table, declared to the config loader at registration. */
export const NATS_BROKER_SETTINGS: ProviderSettingsSpec = {
  keys: {
    uri: NATS_URI,
    stream_prefix: { kind: 'string' },
    subject_prefix: { kind: 'string' },
    ack_wait_ms: duration(1_000),
    max_deliver: { kind: 'integer', min: 0, max: 1_000_000 },
    duplicate_window_ms: duration(1_000),
    max_msgs: { kind: 'integer', min: 0, max: MAX_MESSAGES },
    max_age_ms: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER },
    connect_timeout_ms: duration(1),
    request_timeout_ms: duration(100),
    replicas: { kind: 'integer', min: 1, max: 5 },
    server_sync_always: { kind: 'boolean' },
    ...CLOUDEVENTS_BROKER_KEYS,
  },
  rules: cloudEventsKeyProblems,
  required: ['uri'],
};

export const NATS_SETTING_KEYS = Object.keys(NATS_BROKER_SETTINGS.keys) as readonly string[];

export interface NatsBrokerSettings {
  servers: string;
  tls: boolean;
  user?: string;
  pass?: string;
  token?: string;
  maskedUri: string;
  secrets: string[];
  streamPrefix: string;
  subjectPrefix: string;
  ackWaitMs: number;
  /** 0: redeliver for ever; n: the adapter dead-letters a message delivered n times without an ack. */
  maxDeliver: number;
  duplicateWindowMs: number;
  maxMsgs: number;
  maxAgeMs: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** `num_replicas` of the streams the adapter creates. */
  replicas: number;
  /** The operator says the server syncs every write to disk (`jetstream { sync_interval: always }`). */
  serverSyncAlways: boolean;
  /** `message_format` and the CloudEvents keys (docs/cloudevents.md). */
  messageFormat: MessageFormatSettings;
}

const NAME_PART = /^[A-Za-z0-9_-]*$/;
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function readNatsBrokerSettings(name: string, settings: BrokerSettings): NatsBrokerSettings {
  const reader = new BrokerSettingsReader(name, settings);
  reader.onlyKeys(NATS_SETTING_KEYS);
  const url = reader.uri('uri', NATS_URI.schemes);
  const uri = settings.uri as string;
  const streamPrefix = reader.string('stream_prefix', '');
  if (!NAME_PART.test(streamPrefix)) {
    throw new BrokerSettingsError(
      name,
      'stream_prefix',
      `may hold only letters, digits, "_" and "-" (it starts JetStream stream names), got ${JSON.stringify(streamPrefix)}`,
    );
  }
  const subjectPrefix = reader.string('subject_prefix', NATS_DEFAULT_SUBJECT_PREFIX);
  if (!SUBJECT.test(subjectPrefix)) {
    throw new BrokerSettingsError(
      name,
      'subject_prefix',
      `must be dot-separated tokens of letters, digits, "_" and "-" without wildcards (e.g. "protean" or "acme.events"), got ${JSON.stringify(subjectPrefix)}`,
    );
  }
  const user = url.username ? safeDecode(url.username) : undefined;
  const password = url.password ? safeDecode(url.password) : undefined;
  const secrets = [url.password, password, user && !password ? user : undefined].filter((s): s is string => !!s);
  const claimIdleMs = reader.integer('claim_idle_ms', 60_000, 0, MAX_TIMER_MS);
  const ackWaitMs = reader.integer('ack_wait_ms', Math.min(NATS_DEFAULT_ACK_WAIT_MS, Math.max(1_000, claimIdleMs)), 1_000, MAX_TIMER_MS);
  return {
    servers: `${url.hostname}:${url.port || '4222'}`,
    tls: url.protocol === 'tls:',
    // `nats://token@host` carries a token, `nats://user:pass@host` a user and password.
    ...(user && password ? { user, pass: password } : user ? { token: user } : {}),
    maskedUri: maskUri(uri),
    secrets: [...new Set(secrets)],
    streamPrefix,
    subjectPrefix,
    ackWaitMs,
    maxDeliver: reader.integer('max_deliver', 0, 0, 1_000_000),
    duplicateWindowMs: reader.integer('duplicate_window_ms', NATS_DEFAULT_DUPLICATE_WINDOW_MS, 1_000, MAX_TIMER_MS),
    maxMsgs: reader.integer('max_msgs', 0, 0, MAX_MESSAGES),
    maxAgeMs: reader.integer('max_age_ms', 0, 0),
    connectTimeoutMs: reader.integer('connect_timeout_ms', NATS_DEFAULT_CONNECT_TIMEOUT_MS, 1, MAX_TIMER_MS),
    requestTimeoutMs: reader.integer('request_timeout_ms', NATS_DEFAULT_REQUEST_TIMEOUT_MS, 100, MAX_TIMER_MS),
    replicas: reader.integer('replicas', 1, 1, 5),
    serverSyncAlways: reader.boolean('server_sync_always', false),
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
