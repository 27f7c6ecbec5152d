/**
 * CloudEvents in Redis stream entries. Redis has no CloudEvents protocol binding, so this follows
 * the Kafka binding's shape with entry fields for headers. Structured mode: `content-type` =
 * `application/cloudevents+json` and the whole event in the `cloudevent` field. Binary mode: each
 * attribute in a `ce_<name>` field, `content-type` = the data's media type, and `data` as JSON.
 * An entry with `ce_specversion` is read as binary, otherwise as structured.
 */
import {
  binaryCloudEventToEnvelope,
  CLOUDEVENTS_JSON,
  envelopeToCloudEvent,
  structuredCloudEventToEnvelope,
  toBinaryCloudEvent,
  type MessageEnvelope,
  type MessageFormatSettings,
} from '@protean-ts/core';
import { fieldMap, type DecodedEntry, type RawEntry } from './redis-entry-codec.js';

export const CE_FIELD_PREFIX = 'ce_';

export function cloudEventFields(envelope: MessageEnvelope, format: MessageFormatSettings): string[] {
  const event = envelopeToCloudEvent(envelope, format.source);
  if (format.mode === 'structured') return ['content-type', `${CLOUDEVENTS_JSON}; charset=utf-8`, 'cloudevent', JSON.stringify(event)];
  const binary = toBinaryCloudEvent(event);
  const fields = Object.entries(binary.attributes).flatMap(([name, value]) => [`${CE_FIELD_PREFIX}${name}`, value]);
  return [...fields, 'content-type', binary.contentType, 'data', binary.body];
}

export function decodeCloudEventEntry(stream: string, [id, fields]: RawEntry, deliveryCount: number): DecodedEntry {
  const map = fieldMap(fields);
  let decoded;
  if (map.has(`${CE_FIELD_PREFIX}specversion`)) {
    const attributes: Record<string, string> = {};
    for (const [name, value] of map) if (name.startsWith(CE_FIELD_PREFIX)) attributes[name.slice(CE_FIELD_PREFIX.length)] = value;
    decoded = binaryCloudEventToEnvelope(attributes, map.get('content-type'), map.get('data') ?? '');
  } else if (map.has('cloudevent')) {
    decoded = structuredCloudEventToEnvelope(map.get('cloudevent')!);
  } else {
    return {
      ok: false,
      id,
      fields,
      problem: 'it is no CloudEvent: it has neither a "ce_specversion" field (binary mode) nor a "cloudevent" field (structured mode)',
    };
  }
  if (!decoded.ok) return { ok: false, id, fields, problem: `its CloudEvent is malformed: ${decoded.problem}` };
  return { ok: true, message: { id, stream, envelope: decoded.envelope, deliveryCount } };
}
