/**
 * `MessageEnvelope` → the registered event or command instance, found by `headers.type`.
 * The checksum, when the envelope carries one, must match its content: a message altered
 * after it was written is refused with `ChecksumMismatchError` rather than handled.
 */
import { ChecksumMismatchError } from '../errors/checksum-mismatch.error.js';
import { MalformedEnvelopeError } from '../errors/malformed-envelope.error.js';
import { UnknownMessageTypeError } from '../errors/unknown-message-type.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import { envelopeChecksum } from './envelope-checksum.js';
import type { MessageEnvelope, MessageMetadata } from './envelope.js';

/** The part of a Domain deserialization needs (a Domain satisfies it). */
export interface MessageTypeLookup {
  readonly name: string;
  messageClassFor(type: string): ClassRef | undefined;
  recordsOf(kind: 'event' | 'command'): readonly { cls: ClassRef }[];
  messageTypeOf(message: ClassRef): string;
}

type MessageBuilder<M> = { fromPlain(plain: Record<string, unknown>, options: { metadata: MessageMetadata }): M };

export interface DeserializeOptions {
  /** Refuse envelopes without a checksum (stripped ones). Default false: only a wrong checksum is refused. */
  requireChecksum?: boolean;
}

export function deserializeMessage<M = unknown>(domain: MessageTypeLookup, envelope: MessageEnvelope, options: DeserializeOptions = {}): M {
  checkShape(envelope);
  const { id, type } = envelope.metadata.headers;
  const expected = envelope.metadata.envelope?.checksum ?? '';
  if (expected !== '' || options.requireChecksum) {
    const actual = envelopeChecksum(envelope);
    if (actual !== expected) throw new ChecksumMismatchError(id, type, expected, actual);
  }
  const cls = domain.messageClassFor(type);
  if (!cls) {
    const known = [...domain.recordsOf('event'), ...domain.recordsOf('command')].map((r) => domain.messageTypeOf(r.cls)).sort();
    throw new UnknownMessageTypeError(type, domain.name, known);
  }
  const metadata = structuredClone(envelope.metadata);
  return (cls as unknown as MessageBuilder<M>).fromPlain(structuredClone(envelope.data), { metadata });
}

function checkShape(envelope: unknown): asserts envelope is MessageEnvelope {
  if (typeof envelope !== 'object' || envelope === null) throw new MalformedEnvelopeError(`got ${envelope === null ? 'null' : typeof envelope}`);
  const { data, metadata } = envelope as Partial<MessageEnvelope>;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new MalformedEnvelopeError('"data" must be an object');
  if (typeof metadata !== 'object' || metadata === null) throw new MalformedEnvelopeError('"metadata" is missing');
  const headers = metadata.headers;
  if (typeof headers !== 'object' || headers === null) throw new MalformedEnvelopeError('"metadata.headers" is missing');
  if (typeof headers.id !== 'string' || headers.id === '') throw new MalformedEnvelopeError('"metadata.headers.id" must be a non-empty string');
  if (typeof headers.type !== 'string' || headers.type === '') throw new MalformedEnvelopeError(`message ${headers.id}: "metadata.headers.type" must be a non-empty string`);
  if (typeof metadata.domain !== 'object' || metadata.domain === null) throw new MalformedEnvelopeError(`message ${headers.id}: "metadata.domain" is missing`);
}
