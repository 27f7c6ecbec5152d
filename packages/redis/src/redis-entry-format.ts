/**
 * How one Redis broker writes and reads its entries, chosen once from `message_format`: the
 * protean-ts envelope (the default) or CloudEvents in `cloudevents_mode`.
 */
import type { MessageEnvelope, MessageFormatSettings } from '@protean-ts/core';
import { cloudEventFields, decodeCloudEventEntry } from './redis-cloud-event-fields.js';
import { decodeEntry, envelopeFields, type DecodedEntry, type RawEntry } from './redis-entry-codec.js';

export interface RedisEntryFormat {
  fields(envelope: MessageEnvelope): string[];
  decode(stream: string, entry: RawEntry, deliveryCount: number): DecodedEntry;
  /** CloudEvents entries have no `envelope` field to copy: their dead letters keep all their fields. */
  readonly rawDeadLetters: boolean;
  /** What an entry must hold to be read, for the error of one that does not. */
  readonly expects: string;
}

const ENVELOPE_EXPECTED = 'entries holding a message envelope as JSON in an "envelope" field (as its brokers and outbox write them)';
const CLOUDEVENTS_EXPECTED =
  'CloudEvents 1.0 entries on this broker (message_format = "cloudevents"): a "cloudevent" field holding the event as JSON, or ce_<attribute> fields with the data in a "data" field';

export function redisEntryFormat(format: MessageFormatSettings): RedisEntryFormat {
  if (format.format === 'envelope') return { fields: envelopeFields, decode: decodeEntry, rawDeadLetters: false, expects: ENVELOPE_EXPECTED };
  return { fields: (envelope) => cloudEventFields(envelope, format), decode: decodeCloudEventEntry, rawDeadLetters: true, expects: CLOUDEVENTS_EXPECTED };
}
