/**
 * How a message sits in a Redis stream entry: the whole envelope as one JSON field, plus the
 * message type and id as plain fields so `XRANGE` and `redis-cli` show what an entry is.
 */
import { brokerEnvelopeProblem, type DeadLetter, type OutgoingMessage, type ReceivedMessage } from '@protean-ts/core';

type MessageEnvelope = OutgoingMessage['envelope'];

/** A stream entry as ioredis returns it: `[id, [field, value, field, value, …]]`. */
export type RawEntry = [id: string, fields: string[]];

/** A read entry: the message, or why it is no message (an entry protean-ts did not write, or corrupted). */
export type DecodedEntry = { ok: true; message: ReceivedMessage } | { ok: false; id: string; fields: string[]; problem: string };

export function envelopeFields(envelope: MessageEnvelope): string[] {
  return ['envelope', JSON.stringify(envelope), 'type', envelope.metadata.headers.type, 'id', envelope.metadata.headers.id];
}

export function fieldMap(fields: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return map;
}

/**
 * The envelope in an entry's `envelope` field, or what is wrong with it. Only what every broker
 * checks on read (`brokerEnvelopeProblem`: the parts `publish` and `deadLetter` rely on, and a
 * bounded nesting), so whatever `read` returns can be acked, dead-lettered and walked without
 * overflowing the stack; the handler side validates the rest.
 */
function parseEnvelope(raw: string | undefined): { envelope: MessageEnvelope } | { problem: string } {
  if (raw === undefined) return { problem: 'it has no "envelope" field' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { problem: `its "envelope" field is not JSON (${(error as Error).message})` };
  }
  // Named after the field when it holds no object at all (a number, an array).
  if (!isObject(value)) return { problem: 'its "envelope" field is not a { data, metadata } object' };
  const problem = brokerEnvelopeProblem(value);
  if (problem !== null) return { problem: `its envelope ${problem}` };
  return { envelope: value as unknown as MessageEnvelope };
}

export function decodeEntry(stream: string, [id, fields]: RawEntry, deliveryCount: number): DecodedEntry {
  const parsed = parseEnvelope(fieldMap(fields).get('envelope'));
  if ('problem' in parsed) return { ok: false, id, fields, problem: parsed.problem };
  return { ok: true, message: { id, stream, envelope: parsed.envelope, deliveryCount } };
}

/**
 * What a dead letter holds when the entry is no longer in the stream as it is dead-lettered
 * (trimmed or deleted meanwhile): the envelope encoded again. Never throws: an envelope that
 * cannot be encoded (not built by `read`) leaves a note instead.
 */
export function fallbackEnvelopeFields(envelope: MessageEnvelope): string[] {
  try {
    return envelopeFields(envelope);
  } catch (error) {
    return ['envelope_unavailable', `the entry was gone from the stream and its envelope could not be encoded (${(error as Error).message})`];
  }
}

/** The same for an undecodable entry: the fields as `read` got them, as a JSON array. */
export function fallbackRawFields(fields: readonly string[]): string[] {
  return ['raw_fields', JSON.stringify(fields)];
}

export function failureFields(originalId: string, stream: string, group: string, error: string, failedAt: string, deliveryCount: number): string[] {
  return ['original_id', originalId, 'stream', stream, 'group', group, 'error', error, 'failed_at', failedAt, 'delivery_count', String(deliveryCount)];
}

/** Never throws: a dead letter whose envelope cannot be read is listed with `envelope: null`. */
export function toDeadLetter([id, fields]: RawEntry): DeadLetter {
  const map = fieldMap(fields);
  const parsed = parseEnvelope(map.get('envelope'));
  const rawFields = parseRawFields(map.get('raw_fields'));
  return {
    id,
    originalId: map.get('original_id') ?? '',
    stream: map.get('stream') ?? '',
    group: map.get('group') ?? '',
    envelope: 'envelope' in parsed ? parsed.envelope : null,
    ...(rawFields ? { rawFields } : {}),
    error: map.get('error') ?? '',
    failedAt: map.get('failed_at') ?? '',
    deliveryCount: Number(map.get('delivery_count') ?? 0),
  };
}

function parseRawFields(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
