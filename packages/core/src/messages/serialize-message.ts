/**
 * Event/command instance → `MessageEnvelope`: the data in its plain form, a copy of the
 * message's metadata, and the checksum over both. The envelope is plain JSON-ready data that
 * round-trips through `deserializeMessage` to the same bytes.
 */
import { MessageWithoutMetadataError } from '../errors/message-without-metadata.error.js';
import { canonicalJson } from './canonical-json.js';
import { envelopeChecksum } from './envelope-checksum.js';
import type { MessageEnvelope, MessageMetadata } from './envelope.js';

/** What serialization needs from a message: its plain data and the metadata stamped on it. */
export interface SerializableMessage {
  toPlain(): Record<string, unknown>;
  readonly _metadata: MessageMetadata | undefined;
}

export function serializeMessage(message: SerializableMessage): MessageEnvelope {
  const metadata = message._metadata;
  if (!metadata) throw new MessageWithoutMetadataError(message.constructor.name);
  // Canonical round trips make the envelope plain (no Dates, no undefined) with sorted keys, so
  // serializing the same message twice gives identical bytes even with JSON.stringify.
  const envelope = JSON.parse(canonicalJson({ data: message.toPlain(), metadata })) as MessageEnvelope;
  envelope.metadata.envelope = { ...envelope.metadata.envelope, checksum: envelopeChecksum(envelope) };
  return JSON.parse(canonicalJson(envelope)) as MessageEnvelope;
}
