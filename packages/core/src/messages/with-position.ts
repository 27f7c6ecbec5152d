/**
 * Stamps the outbox-assigned position into an envelope. The checksum leaves `position` out, so
 * an envelope stays verifiable after the store numbers it.
 */
import type { MessageEnvelope, MessagePosition } from './envelope.js';

export function withPosition(envelope: MessageEnvelope, position: MessagePosition): MessageEnvelope {
  return { ...envelope, metadata: { ...envelope.metadata, envelope: { ...envelope.metadata.envelope, position } } };
}

/** The envelope's position when it has a well-formed one; messages from outside the outbox have none. */
export function positionOf(envelope: unknown): MessagePosition | null {
  const position = (envelope as { metadata?: { envelope?: { position?: unknown } } } | null)?.metadata?.envelope?.position;
  if (typeof position !== 'object' || position === null) return null;
  const { key, sequence } = position as Partial<MessagePosition>;
  if (typeof key !== 'string' || key === '' || !Number.isSafeInteger(sequence) || (sequence as number) < 1) return null;
  return { key, sequence: sequence as number };
}
