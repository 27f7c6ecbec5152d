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
}

export function redisEntryFormat(format: MessageFormatSettings): RedisEntryFormat {
  if (format.format === 'envelope') return { fields: envelopeFields, decode: decodeEntry, rawDeadLetters: false };
  return { fields: (envelope) => cloudEventFields(envelope, format), decode: decodeCloudEventEntry, rawDeadLetters: true };
}
