/**
 * Stamps the outbox-assigned position into an envelope. The checksum leaves `position` out, so
 * an envelope stays verifiable after the store numbers it.
 */
import type { MessageEnvelope, MessagePosition } from './envelope.js';

/**
 * The longest partition key a position may carry, in UTF-16 units (at most 3 bytes each in
 * UTF-8): inboxes index the key, and PostgreSQL refuses index rows past about 2,700 bytes. Keys
 * the outbox writes are aggregate streams (`shop::order-<id>`), far shorter.
 */
export const MAX_POSITION_KEY_LENGTH = 500;

export function withPosition(envelope: MessageEnvelope, position: MessagePosition): MessageEnvelope {
  return { ...envelope, metadata: { ...envelope.metadata, envelope: { ...envelope.metadata.envelope, position } } };
}

/**
 * The envelope's position when it has a well-formed one; messages from outside the outbox have
 * none. Well-formed: a key an inbox can store (non-empty, at most `MAX_POSITION_KEY_LENGTH`, no
 * NUL, which PostgreSQL text cannot hold) and a sequence that is a safe integer ≥ 1.
 */
export function positionOf(envelope: unknown): MessagePosition | null {
  const position = (envelope as { metadata?: { envelope?: { position?: unknown } } } | null)?.metadata?.envelope?.position;
  if (typeof position !== 'object' || position === null) return null;
  const { key, sequence } = position as Partial<MessagePosition>;
  if (typeof key !== 'string' || key === '' || key.length > MAX_POSITION_KEY_LENGTH || key.includes('\u0000')) return null;
  if (!Number.isSafeInteger(sequence) || (sequence as number) < 1) return null;
  return { key, sequence: sequence as number };
}
