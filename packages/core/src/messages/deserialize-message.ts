/**
 * `MessageEnvelope` → the registered event or command instance, found by `headers.type`. The
 * envelope is checked first (`checkEnvelope`: bounded nesting, shape, checksum): a message
 * altered after it was written is refused with `ChecksumMismatchError` rather than handled. An
 * envelope of an older version of a registered event is upcast to its current version.
 */
import { UnknownMessageTypeError } from '../errors/unknown-message-type.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import { checkEnvelope, type CheckEnvelopeOptions } from './check-envelope.js';
import type { MessageEnvelope, MessageMetadata } from './envelope.js';

/** The part of a Domain deserialization needs (a Domain satisfies it). */
export interface MessageTypeLookup {
  readonly name: string;
  messageClassFor(type: string): ClassRef | undefined;
  recordsOf(kind: 'event' | 'command'): readonly { cls: ClassRef }[];
  messageTypeOf(message: ClassRef): string;
  /** A stored older version of a registered event, upcast to its current version (see domain/upcasters.ts). */
  upcastStored?(envelope: MessageEnvelope): MessageEnvelope | undefined;
}

type MessageBuilder<M> = { fromPlain(plain: Record<string, unknown>, options: { metadata: MessageMetadata }): M };

export type DeserializeOptions = CheckEnvelopeOptions;

export function deserializeMessage<M = unknown>(domain: MessageTypeLookup, envelope: MessageEnvelope, options: DeserializeOptions = {}): M {
  checkEnvelope(envelope, options);
  const { type } = envelope.metadata.headers;
  let cls = domain.messageClassFor(type);
  // An older version of a registered event: upcast after the checksum check, which covers the stored data.
  const upcast = cls ? undefined : domain.upcastStored?.(envelope);
  if (upcast) {
    envelope = upcast;
    cls = domain.messageClassFor(upcast.metadata.headers.type);
  }
  if (!cls) {
    const known = [...domain.recordsOf('event'), ...domain.recordsOf('command')].map((r) => domain.messageTypeOf(r.cls)).sort();
    throw new UnknownMessageTypeError(type.length > 200 ? `${type.slice(0, 200)}…` : type, domain.name, known);
  }
  const metadata = structuredClone(envelope.metadata);
  return (cls as unknown as MessageBuilder<M>).fromPlain(structuredClone(envelope.data), { metadata });
}
