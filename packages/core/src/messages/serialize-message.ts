/**
 * Event/command instance → `MessageEnvelope`: the data in its plain form, a copy of the
 * message's metadata, and the checksum over both. The envelope is plain JSON-ready data that
 * round-trips through `deserializeMessage` to the same bytes.
 */
import { MessageWithoutMetadataError } from '../errors/message-without-metadata.error.js';
import { canonicalJson } from './canonical-json.js';
import { checksumOfCanonical } from './envelope-checksum.js';
import type { EnvelopeInfo, MessageEnvelope, MessageMetadata } from './envelope.js';

/** What serialization needs from a message: its plain data and the metadata stamped on it. */
export interface SerializableMessage {
  toPlain(): Record<string, unknown>;
  readonly _metadata: MessageMetadata | undefined;
}

export function serializeMessage(message: SerializableMessage): MessageEnvelope {
  const metadata = message._metadata;
  if (!metadata) throw new MessageWithoutMetadataError(message.constructor.name);
  // A position is the outbox's to assign when it writes the row (and the checksum leaves it out):
  // one a received message still carries belongs to that delivery, not to a new envelope.
  const { checksum: _stale, position: _assignedByTheOutbox, ...envelopeInfo } = metadata.envelope;
  // One canonical pass gives both the hashed text and (parsed back) a plain envelope with
  // sorted keys, so serializing the same message twice gives identical bytes.
  const text = canonicalJson({ data: message.toPlain(), metadata: { ...metadata, envelope: envelopeInfo } });
  const envelope = JSON.parse(text) as MessageEnvelope;
  envelope.metadata.envelope = withChecksum(envelope.metadata.envelope, checksumOfCanonical(text));
  return envelope;
}

/** The envelope info (keys sorted, as parsed from canonical JSON) with the checksum in its sorted place. */
function withChecksum(info: EnvelopeInfo, checksum: string): EnvelopeInfo {
  const sorted: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(info)) {
    if (!placed && key > 'checksum') {
      sorted.checksum = checksum;
      placed = true;
    }
    sorted[key] = value;
  }
  if (!placed) sorted.checksum = checksum;
  return sorted as unknown as EnvelopeInfo;
}
