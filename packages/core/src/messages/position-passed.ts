/**
 * The marker the outbox publishes in place of a row it abandoned: it carries the abandoned row's
 * position, so every subscription of the stream moves that key past it (recorded, so the message
 * is still handled if `outbox retry` publishes it later) instead of holding the key's later
 * messages until the gap timeout. It is signed like every envelope the framework writes, and its
 * data repeats the position, so the checksum (which leaves `metadata.envelope.position` out)
 * covers the one thing a marker means.
 */
import { MalformedEnvelopeError } from '../errors/malformed-envelope.error.js';
import { checkEnvelope, type CheckEnvelopeOptions } from './check-envelope.js';
import { envelopeChecksum } from './envelope-checksum.js';
import type { MessageEnvelope, MessagePosition } from './envelope.js';
import { newMessageId } from './message-id.js';
import { storableText } from './storable-text.js';
import { positionOf } from './with-position.js';

export const POSITION_PASSED_TYPE = 'protean.PositionPassed.v1';

export interface PassedRow {
  position: MessagePosition;
  /** The abandoned message. */
  messageId: string;
  messageType: string;
  streamCategory: string;
  reason: string;
}

export function positionPassedEnvelope(row: PassedRow): MessageEnvelope {
  const { key, sequence } = row.position;
  const envelope: MessageEnvelope = {
    data: { messageId: row.messageId, messageType: row.messageType, reason: row.reason, passedPosition: { key, sequence } },
    metadata: {
      headers: { id: newMessageId(), time: new Date().toISOString(), type: POSITION_PASSED_TYPE, stream: key },
      envelope: { specversion: '1.0', position: { key, sequence } },
      domain: { fqn: 'protean.PositionPassed', kind: 'EVENT', streamCategory: row.streamCategory, version: 1 },
      extensions: {},
    },
  };
  envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
  return envelope;
}

/** The abandoned row a marker stands for (as text an inbox can record), or null when the envelope is no marker. */
export function passedRowOf(envelope: unknown): { messageId: string; reason: string } | null {
  const candidate = envelope as { data?: Record<string, unknown>; metadata?: { headers?: { type?: unknown } } } | null;
  if (candidate?.metadata?.headers?.type !== POSITION_PASSED_TYPE) return null;
  const data = isRecord(candidate.data) ? candidate.data : {};
  return { messageId: storableText(data.messageId ?? '', 255), reason: storableText(data.reason ?? 'abandoned in the outbox', 2000) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Throws unless a marker may be trusted (`checkEnvelope`, then the position it passes agrees with
 * the signed copy in its data): a corrupted or forged marker would move a key past a message.
 */
export function checkPositionPassed(envelope: unknown, options: CheckEnvelopeOptions = {}): void {
  checkEnvelope(envelope, options);
  const signed = (envelope.data as { passedPosition?: unknown }).passedPosition;
  if (signed === undefined) return;
  const position = positionOf(envelope);
  const same =
    position !== null &&
    typeof signed === 'object' &&
    signed !== null &&
    (signed as Partial<MessagePosition>).key === position.key &&
    (signed as Partial<MessagePosition>).sequence === position.sequence;
  if (!same) {
    throw new MalformedEnvelopeError(
      `position marker ${envelope.metadata.headers.id.slice(0, 200)}: its metadata.envelope.position does not match the position its data passes`,
    );
  }
}
