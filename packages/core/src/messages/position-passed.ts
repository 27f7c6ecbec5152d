/**
 * The marker the outbox publishes in place of a row it abandoned: it carries the abandoned row's
 * position, so every subscription of the stream moves that key past it (recorded, so the message
 * is still handled if `outbox retry` publishes it later) instead of holding the key's later
 * messages until the gap timeout.
 */
import type { MessageEnvelope, MessagePosition } from './envelope.js';
import { newMessageId } from './message-id.js';

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
  return {
    data: { messageId: row.messageId, messageType: row.messageType, reason: row.reason },
    metadata: {
      headers: { id: newMessageId(), time: new Date().toISOString(), type: POSITION_PASSED_TYPE, stream: row.position.key },
      envelope: { specversion: '1.0', position: row.position },
      domain: { fqn: 'protean.PositionPassed', kind: 'EVENT', streamCategory: row.streamCategory, version: 1 },
      extensions: {},
    },
  };
}

/** The abandoned row a marker stands for, or null when the envelope is no marker. */
export function passedRowOf(envelope: unknown): { messageId: string; reason: string } | null {
  const candidate = envelope as { data?: Record<string, unknown>; metadata?: { headers?: { type?: unknown } } } | null;
  if (candidate?.metadata?.headers?.type !== POSITION_PASSED_TYPE) return null;
  const data = candidate.data ?? {};
  return { messageId: String(data.messageId ?? ''), reason: String(data.reason ?? 'abandoned in the outbox') };
}
