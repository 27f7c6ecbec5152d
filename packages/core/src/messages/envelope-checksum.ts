/**
 * The checksum of an envelope: sha256 (hex) of the canonical JSON of `{ data, metadata }` with
 * `metadata.envelope.checksum` itself left out, so it can be recomputed on receipt, and the
 * `position` left out too: the outbox assigns it when it writes the row, after the checksum.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { MessageEnvelope } from './envelope.js';

export function envelopeChecksum(envelope: MessageEnvelope): string {
  const { checksum: _ignored, position: _assignedLater, ...envelopeInfo } = envelope.metadata.envelope;
  return checksumOfCanonical(canonicalJson({ data: envelope.data, metadata: { ...envelope.metadata, envelope: envelopeInfo } }));
}

/** sha256 hex of canonical JSON text already built without the checksum. */
export function checksumOfCanonical(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
