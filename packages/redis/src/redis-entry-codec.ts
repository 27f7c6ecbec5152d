/**
 * How a message sits in a Redis stream entry: the whole envelope as one JSON field, plus the
 * message type and id as plain fields so `XRANGE` and `redis-cli` show what an entry is.
 */
import type { DeadLetter, OutgoingMessage, ReceivedMessage } from '@protean-ts/core';

type MessageEnvelope = OutgoingMessage['envelope'];

/** A stream entry as ioredis returns it: `[id, [field, value, field, value, …]]`. */
export type RawEntry = [id: string, fields: string[]];

export function envelopeFields(envelope: MessageEnvelope): string[] {
  return ['envelope', JSON.stringify(envelope), 'type', envelope.metadata.headers.type, 'id', envelope.metadata.headers.id];
}

export function fieldMap(fields: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return map;
}

function parseEnvelope(entryId: string, raw: string | undefined): MessageEnvelope {
  if (raw === undefined) throw new Error(`stream entry ${entryId} has no "envelope" field; it was not written by protean-ts`);
  return JSON.parse(raw) as MessageEnvelope;
}

export function toReceived(stream: string, [id, fields]: RawEntry, deliveryCount: number): ReceivedMessage {
  return { id, stream, envelope: parseEnvelope(id, fieldMap(fields).get('envelope')), deliveryCount };
}

export function deadLetterFields(stream: string, group: string, message: ReceivedMessage, error: string, failedAt: string): string[] {
  return [
    ...envelopeFields(message.envelope),
    'original_id', message.id,
    'stream', stream,
    'group', group,
    'error', error,
    'failed_at', failedAt,
    'delivery_count', String(message.deliveryCount),
  ];
}

export function toDeadLetter([id, fields]: RawEntry): DeadLetter {
  const map = fieldMap(fields);
  return {
    id,
    originalId: map.get('original_id') ?? '',
    stream: map.get('stream') ?? '',
    group: map.get('group') ?? '',
    envelope: parseEnvelope(id, map.get('envelope')),
    error: map.get('error') ?? '',
    failedAt: map.get('failed_at') ?? '',
    deliveryCount: Number(map.get('delivery_count') ?? 0),
  };
}
