/**
 * CloudEvents on NATS JetStream, after the CloudEvents NATS binding. Structured mode: the whole
 * event as the payload with a `content-type: application/cloudevents+json` header. Binary mode:
 * each attribute in a `ce-<name>` header, `datacontenttype` as `content-type`, and `data` as the
 * payload. A message with a `ce-specversion` header is read as binary, otherwise as structured.
 */
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import {
  binaryCloudEventToEnvelope,
  CLOUDEVENTS_JSON,
  envelopeToCloudEvent,
  structuredCloudEventToEnvelope,
  toBinaryCloudEvent,
  type MessageEnvelope,
  type MessageFormatSettings,
} from '@protean-ts/core';
import type { NatsDelivery } from './nats-delivery.js';
import type { DecodedPayload } from './nats-envelope.js';

export const CE_HEADER_PREFIX = 'ce-';
const decoder = new TextDecoder();

export function encodeCloudEvent(envelope: MessageEnvelope, format: MessageFormatSettings): { payload: string; headers: MsgHdrs } {
  const event = envelopeToCloudEvent(envelope, format.source);
  const headers = natsHeaders();
  if (format.mode === 'structured') {
    headers.set('content-type', CLOUDEVENTS_JSON);
    return { payload: JSON.stringify(event), headers };
  }
  const binary = toBinaryCloudEvent(event);
  for (const [name, value] of Object.entries(binary.attributes)) headers.set(`${CE_HEADER_PREFIX}${name}`, value);
  headers.set('content-type', binary.contentType);
  return { payload: binary.body, headers };
}

export function decodeCloudEvent(delivery: Pick<NatsDelivery, 'data' | 'headers'>): DecodedPayload {
  const text = decoder.decode(delivery.data);
  const attributes: Record<string, string> = {};
  let contentType: string | undefined;
  // NATS header names are case-sensitive on the wire; the binding's are lower case, read regardless.
  for (const [name, value] of Object.entries(delivery.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower.startsWith(CE_HEADER_PREFIX)) attributes[lower.slice(CE_HEADER_PREFIX.length)] = value;
    else if (lower === 'content-type') contentType = value;
  }
  const decoded = attributes.specversion !== undefined ? binaryCloudEventToEnvelope(attributes, contentType, text) : structuredCloudEventToEnvelope(text);
  return decoded.ok ? { envelope: decoded.envelope, text } : { envelope: null, text, error: `its CloudEvent is malformed: ${decoded.problem}` };
}
