/**
 * The envelope sent to external brokers (other systems): headers, domain routing data and
 * extensions are kept; internal details that mean nothing outside this domain (expected
 * version, per-stream sequence, checksum) are removed.
 */
import type { DomainMeta, MessageEnvelope } from './envelope.js';

export function stripEnvelope(envelope: MessageEnvelope): MessageEnvelope {
  const copy = structuredClone(envelope);
  const { sequenceId: _sequence, expectedVersion: _expected, ...domain } = copy.metadata.domain;
  const { checksum: _checksum, ...envelopeInfo } = copy.metadata.envelope;
  copy.metadata.domain = domain as DomainMeta;
  copy.metadata.envelope = envelopeInfo;
  return copy;
}
