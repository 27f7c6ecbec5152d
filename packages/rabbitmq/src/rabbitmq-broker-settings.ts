/**
 * The `[brokers.<name>]` table of a `provider = "rabbitmq"` broker, read and checked once, with
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

/** Messages a stream holds while it has no consumer group yet (the oldest go first); 0 = no limit. */
export const RABBITMQ_DEFAULT_MAXLEN = 100_000;
/** Deliveries without an ack after which RabbitMQ itself dead-letters a message (a poison pill). */
export const RABBITMQ_DEFAULT_DELIVERY_LIMIT = 20;
export const RABBITMQ_DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/**
 * RabbitMQ's own default `collect_statistics_interval`: the management API's queue counts are
 * refreshed this often, so a reading can be up to this old.
 */
export const RABBITMQ_DEFAULT_MANAGEMENT_STATS_INTERVAL_MS = 5_000;

const MAX_QUEUE_LENGTH = 1_000_000_000;
const connectTimeout = { kind: 'integer', min: 1, max: MAX_TIMER_MS } as const;
const statsInterval = { kind: 'integer', min: 1, max: MAX_TIMER_MS } as const;

// What `uri` and `management_uri` must look like; the config loader checks them, so `config check` reports a wrong one.
const AMQP_URI = { kind: 'uri', schemes: ['amqp', 'amqps'], example: 'amqp://app@localhost:5672/vhost' } as const;
const MANAGEMENT_URI = { kind: 'uri', schemes: ['http', 'https'], example: 'http://localhost:15672' } as const;

/** The keys of a rabbitmq `[brokers.<name>]` table, declared to the config loader at registration. */
export const RABBITMQ_BROKER_SETTINGS: ProviderSettingsSpec = {
  keys: {
    uri: AMQP_URI,
    name_prefix: { kind: 'string' },
    maxlen: { kind: 'integer', min: 0, max: MAX_QUEUE_LENGTH },
    delivery_limit: { kind: 'integer', min: 1, max: 1_000_000 },
    connect_timeout_ms: connectTimeout,
    management_uri: MANAGEMENT_URI,
    management_stats_interval_ms: statsInterval,
    ...CLOUDEVENTS_BROKER_KEYS,
  },
  rules: cloudEventsKeyProblems,
  required: ['uri'],
};

export const RABBITMQ_SETTING_KEYS = Object.keys(RABBITMQ_BROKER_SETTINGS.keys) as readonly string[];

export interface RabbitMQBrokerSettings {
  uri: string;
  maskedUri: string;
  /** Secrets that must never appear in logs or errors (the password, raw and decoded). */
  secrets: string[];
  namePrefix: string;
  maxlen: number;
  deliveryLimit: number;
  connectTimeoutMs: number;
  /** The virtual host the uri opens (its path, `/` when it has none), as RabbitMQ names it. */
  vhost: string;
  /** Where other connections' unacked deliveries can be read; null when `management_uri` is not set. */
  management: RabbitMQManagementSettings | null;
  /** `message_format` and the CloudEvents keys (docs/cloudevents.md). */
  messageFormat: MessageFormatSettings;
}

export interface RabbitMQManagementSettings {
  /** The API's base address without credentials (they travel in an Authorization header). */
  baseUrl: string;
  maskedUri: string;
  username: string;
  password: string;
  /** How old a reading of the API's queue counts can be: its `collect_statistics_interval`. */
  statsIntervalMs: number;
}

export function readRabbitMQBrokerSettings(name: string, settings: BrokerSettings): RabbitMQBrokerSettings {
  const reader = new BrokerSettingsReader(name, settings);
  reader.onlyKeys(RABBITMQ_SETTING_KEYS);
  if (settings.claim_idle_ms !== undefined) {
    // Accepted it would do nothing: there is no reclaim to tune.
    throw new BrokerSettingsError(
      name,
      'claim_idle_ms',
      'has no effect with provider "rabbitmq": RabbitMQ puts a stopped consumer\'s unacked messages back in their queue the moment its connection closes, and the poison limit is delivery_limit; remove the key',
    );
  }
  const url = reader.uri('uri', AMQP_URI.schemes);
  const uri = settings.uri as string;
  const management = readManagementSettings(name, reader, settings);
  const passwords = [url.password, management ? new URL(settings.management_uri as string).password : ''].filter((p) => p !== '');
  const secrets = [...new Set(passwords.flatMap((p) => [p, safeDecode(p)]))];
  return {
    uri,
    maskedUri: maskUri(uri),
    secrets,
    namePrefix: reader.string('name_prefix', ''),
    maxlen: reader.integer('maxlen', RABBITMQ_DEFAULT_MAXLEN, 0, MAX_QUEUE_LENGTH),
    deliveryLimit: reader.integer('delivery_limit', RABBITMQ_DEFAULT_DELIVERY_LIMIT, 1, 1_000_000),
    connectTimeoutMs: reader.integer('connect_timeout_ms', RABBITMQ_DEFAULT_CONNECT_TIMEOUT_MS, connectTimeout.min, connectTimeout.max),
    // The same rule as the AMQP client's: the first path segment, decoded, or `/`.
    vhost: safeDecode(url.pathname.split('/')[1] || '/'),
    management,
    messageFormat: readMessageFormatSettings(name, settings),
  };
}

function readManagementSettings(name: string, reader: BrokerSettingsReader, settings: BrokerSettings): RabbitMQManagementSettings | null {
  if (settings.management_uri === undefined) {
    if (settings.management_stats_interval_ms !== undefined) {
      throw new BrokerSettingsError(
        name,
        'management_stats_interval_ms',
        'has no effect without management_uri; set management_uri (the management API, e.g. "http://user:password@host:15672") or remove the key',
      );
    }
    return null;
  }
  const url = reader.uri('management_uri', MANAGEMENT_URI.schemes);
  const username = safeDecode(url.username);
  const password = safeDecode(url.password);
  url.username = '';
  url.password = '';
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    maskedUri: maskUri(settings.management_uri as string),
    username,
    password,
    statsIntervalMs: reader.integer('management_stats_interval_ms', RABBITMQ_DEFAULT_MANAGEMENT_STATS_INTERVAL_MS, statsInterval.min, statsInterval.max),
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
