/**
 * The checksum of a snapshot: sha256 (hex) of the canonical JSON of its stream name, version,
 * type and data, as events' envelopes are checksummed. It ties the data to the stream and the
 * version it was taken at, so a row edited, or copied onto another stream, no longer matches.
 */
import { canonicalJson } from '../messages/canonical-json.js';
import { checksumOfCanonical } from '../messages/envelope-checksum.js';
import type { NewSnapshot } from './event-store-records.js';

export function snapshotChecksum(snapshot: NewSnapshot): string {
  const { streamName, version, type, data } = snapshot;
  return checksumOfCanonical(canonicalJson({ streamName, version, type, data }));
}
