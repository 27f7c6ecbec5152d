/**
 * The CloudEvents keys of a `[brokers.<name>]` table, shared by every broker adapter that can
 * send and read CloudEvents (redis, rabbitmq, nats): declared to the config loader through each
 * adapter's settings spec, and read once by the adapter with named errors.
 */
import { describeValue } from '../../config/mask-secrets.js';
import type { BrokerSettings } from '../../config/config-types.js';
import { BrokerSettingsError } from '../../config/broker-settings.error.js';
import { BrokerSettingsReader } from '../../config/broker-settings-reader.js';
import type { CloudEventsMode, MessageFormat } from './cloud-event.js';

export const MESSAGE_FORMATS: readonly MessageFormat[] = ['envelope', 'cloudevents'];
export const CLOUDEVENTS_MODES: readonly CloudEventsMode[] = ['structured', 'binary'];
export const DEFAULT_CLOUDEVENTS_MODE: CloudEventsMode = 'structured';

/** Spread into an adapter's `ProviderSettingsSpec.keys`. */
export const CLOUDEVENTS_BROKER_KEYS = {
  message_format: { kind: 'enum', values: MESSAGE_FORMATS },
  cloudevents_mode: { kind: 'enum', values: CLOUDEVENTS_MODES },
  cloudevents_source: { kind: 'string' },
} as const;

export const CLOUDEVENTS_SETTING_KEYS = Object.keys(CLOUDEVENTS_BROKER_KEYS) as readonly string[];

/**
 * The rules across the CloudEvents keys (`ProviderSettingsSpec.rules` of each adapter, so the
 * configuration check reports them; readMessageFormatSettings throws the first when the broker is built).
 */
export function cloudEventsKeyProblems(settings: Readonly<Record<string, unknown>>): { key: string; problem: string }[] {
  const problems: { key: string; problem: string }[] = [];
  if ((settings.message_format ?? 'envelope') === 'envelope') {
    for (const key of ['cloudevents_mode', 'cloudevents_source']) {
      if (settings[key] !== undefined) problems.push({ key, problem: 'only applies with message_format = "cloudevents"; set that too, or remove this key' });
    }
  }
  if (typeof settings.cloudevents_source === 'string' && settings.cloudevents_source.trim() === '') {
    problems.push({
      key: 'cloudevents_source',
      problem: 'must be a non-empty URI-reference, e.g. "https://shop.example.com/orders"; remove it for the default',
    });
  }
  return problems;
}

/** How a broker writes and reads messages. `source` is empty when the default applies. */
export interface MessageFormatSettings {
  format: MessageFormat;
  mode: CloudEventsMode;
  /** `cloudevents_source`; empty: each event's `/<domain>/<stream category>`. */
  source: string;
}

export const ENVELOPE_FORMAT: MessageFormatSettings = { format: 'envelope', mode: DEFAULT_CLOUDEVENTS_MODE, source: '' };

export function readMessageFormatSettings(brokerName: string, settings: BrokerSettings): MessageFormatSettings {
  const reader = new BrokerSettingsReader(brokerName, settings);
  const format = oneOf(brokerName, 'message_format', reader.string('message_format', 'envelope'), MESSAGE_FORMATS);
  const mode = oneOf(brokerName, 'cloudevents_mode', reader.string('cloudevents_mode', DEFAULT_CLOUDEVENTS_MODE), CLOUDEVENTS_MODES);
  const source = reader.string('cloudevents_source', '');
  const [broken] = cloudEventsKeyProblems(settings);
  if (broken) throw new BrokerSettingsError(brokerName, broken.key, broken.problem);
  return { format, mode, source };
}

function oneOf<T extends string>(brokerName: string, key: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new BrokerSettingsError(brokerName, key, `must be one of ${allowed.map((v) => `"${v}"`).join(', ')}, got ${describeValue(value)}`);
}
