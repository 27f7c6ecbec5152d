/**
 * CloudEvents on RabbitMQ. Structured mode: the whole event as the body, content type
 * `application/cloudevents+json`. Binary mode, after the CloudEvents AMQP binding: each attribute
 * in a `cloudEvents_<name>` header (AMQP 0-9-1 headers stand for AMQP 1.0 application-properties;
 * the `cloudEvents:` prefix of earlier binding versions is read too), `datacontenttype` as the
 * AMQP content type and `data` as the body. A message with a `…specversion` header is read as binary.
 */
import type { Envelope, MessageBody } from 'rabbitmq-client';
import {
  binaryCloudEventToEnvelope,
  CLOUDEVENTS_JSON,
  envelopeToCloudEvent,
  structuredCloudEventToEnvelope,
  toBinaryCloudEvent,
  type MessageEnvelope,
  type MessageFormatSettings,
} from '@protean-ts/core';
import { rawText, type Decoded } from './rabbitmq-message-codec.js';

export const CE_HEADER_PREFIX = 'cloudEvents_';
const CE_HEADER_PREFIXES = [CE_HEADER_PREFIX, 'cloudEvents:'];

export function encodeCloudEvent(
  envelope: MessageEnvelope,
  format: MessageFormatSettings,
): { body: Buffer; contentType: string; headers: Record<string, string> } {
  const event = envelopeToCloudEvent(envelope, format.source);
  if (format.mode === 'structured') return { body: Buffer.from(JSON.stringify(event)), contentType: CLOUDEVENTS_JSON, headers: {} };
  const binary = toBinaryCloudEvent(event);
  const headers = Object.fromEntries(Object.entries(binary.attributes).map(([name, value]) => [`${CE_HEADER_PREFIX}${name}`, value]));
  return { body: Buffer.from(binary.body), contentType: binary.contentType, headers };
}

/** A delivery's CloudEvent as an envelope, or why it is none. */
export function decodeCloudEvent(delivery: Pick<Envelope, 'contentType' | 'headers'> & { body: MessageBody }): Decoded {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(delivery.headers ?? {})) {
    const prefix = CE_HEADER_PREFIXES.find((p) => name.startsWith(p));
    if (prefix && value !== undefined && value !== null) attributes[name.slice(prefix.length)] = headerText(value);
  }
  // rabbitmq-client parses an application/json body itself: turned back into its text.
  const body = rawText(delivery.body);
  const decoded =
    attributes.specversion !== undefined ? binaryCloudEventToEnvelope(attributes, delivery.contentType, body) : structuredCloudEventToEnvelope(body);
  return decoded.ok ? { ok: true, envelope: decoded.envelope } : { ok: false, reason: `its CloudEvent is malformed: ${decoded.problem}`, raw: body };
}

function headerText(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString();
  return typeof value === 'string' ? value : String(value);
}
