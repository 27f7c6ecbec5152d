/**
 * From a CloudEvent read off a broker to the envelope handlers and subscribers get, or the
 * reason it is no CloudEvent this domain can read (the broker dead-letters it with that reason).
 * Events written by protean-ts come back as the envelope they left as; another system's get
 * `type` as message type, `id` as message id, `subject` as stream, and their attributes under
 * `metadata.extensions.cloudEvent`.
 */
import { brokerEnvelopeProblem } from '../broker-envelope-problem.js';
import type { DomainMeta, MessageEnvelope, MessageKind } from '../envelope.js';
import { ENVELOPE_EXTENSIONS as X, isJsonContentType, type CloudEventAttributeValue } from './cloud-event.js';
import { CLOUD_EVENT_EXTENSION } from './envelope-to-cloud-event.js';

export type CloudEventDecoding = { ok: true; envelope: MessageEnvelope } | { ok: false; problem: string };

const INTEGER_EXTENSIONS: readonly string[] = [X.positionSequence, X.version, X.expectedVersion];
const OWN_EXTENSIONS = new Set<string>(Object.values(X));

/** Structured mode: the message body, `application/cloudevents+json`. */
export function structuredCloudEventToEnvelope(body: string): CloudEventDecoding {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `its body is not a JSON CloudEvent (${(error as Error).message})` };
  }
  if (!isObject(value)) return { ok: false, problem: 'its body is not a JSON CloudEvent object' };
  if ('data_base64' in value) return { ok: false, problem: 'it carries data_base64 (binary data); only JSON data can become a domain event' };
  const { data, ...attributes } = value;
  return cloudEventToEnvelope(attributes, data, attributes.datacontenttype);
}

/** Binary mode: attributes from the broker's headers (prefix removed), `data` as the body. */
export function binaryCloudEventToEnvelope(attributes: Record<string, string>, contentType: string | undefined, body: string): CloudEventDecoding {
  const typed: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(attributes)) typed[name] = typedAttribute(name, text);
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    return { ok: false, problem: `its content type is "${contentType}"; only JSON data can become a domain event` };
  }
  let data: unknown;
  try {
    data = body.trim() === '' ? undefined : JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `its body (the data) is not JSON (${(error as Error).message})` };
  }
  return cloudEventToEnvelope(typed, data, contentType);
}

function cloudEventToEnvelope(attributes: Record<string, unknown>, data: unknown, contentType: unknown): CloudEventDecoding {
  if (attributes.specversion !== '1.0') {
    const got = attributes.specversion === undefined ? 'it has no specversion attribute' : `its specversion is ${JSON.stringify(attributes.specversion)}`;
    return { ok: false, problem: `${got}; only CloudEvents 1.0 ("1.0") can be read` };
  }
  for (const name of ['id', 'source', 'type'] as const) {
    const value = attributes[name];
    if (typeof value !== 'string' || value.trim() === '') return { ok: false, problem: `it has no "${name}" attribute (required by CloudEvents 1.0)` };
  }
  for (const name of ['time', 'subject', 'dataschema', 'datacontenttype'] as const) {
    if (attributes[name] !== undefined && typeof attributes[name] !== 'string') return { ok: false, problem: `its "${name}" attribute is not a string` };
  }
  const time = attributes.time as string | undefined;
  if (time !== undefined && Number.isNaN(Date.parse(time))) return { ok: false, problem: `its "time" attribute "${time}" is no RFC 3339 timestamp` };
  if (typeof contentType === 'string' && !isJsonContentType(contentType)) {
    return { ok: false, problem: `its datacontenttype is "${contentType}"; only JSON data can become a domain event` };
  }
  const fields = data === undefined ? {} : data;
  if (!isObject(fields)) return { ok: false, problem: "its data is not a JSON object (an event's fields)" };
  const own = readOwnExtensions(attributes.proteanextensions);
  if (typeof own === 'string') return { ok: false, problem: own };
  const envelope = buildEnvelope(attributes, fields, own);
  const problem = brokerEnvelopeProblem(envelope);
  return problem === null ? { ok: true, envelope } : { ok: false, problem: `the event ${problem}` };
}

function buildEnvelope(a: Record<string, unknown>, data: Record<string, unknown>, own: Record<string, unknown>): MessageEnvelope {
  const text = (name: string): string | undefined => (typeof a[name] === 'string' ? (a[name] as string) : undefined);
  const integer = (name: string): number | undefined => (Number.isSafeInteger(a[name]) ? (a[name] as number) : undefined);
  const domain: DomainMeta = {
    fqn: text(X.fqn) ?? (a.type as string),
    kind: (text(X.kind) === 'COMMAND' ? 'COMMAND' : 'EVENT') as MessageKind,
    streamCategory: text(X.streamCategory) ?? '',
    version: integer(X.version) ?? 1,
    correlationId: text(X.correlationId) ?? null,
    causationId: text(X.causationId) ?? null,
  };
  if (text(X.sequenceId) !== undefined) domain.sequenceId = text(X.sequenceId)!;
  if (integer(X.expectedVersion) !== undefined) domain.expectedVersion = integer(X.expectedVersion)!;
  if (typeof a[X.published] === 'boolean') domain.published = a[X.published] as boolean;
  const key = text(X.positionKey);
  const sequence = integer(X.positionSequence);
  const checksum = text(X.checksum);
  const cloudEvent: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(a)) {
    if (name === 'specversion' || name === 'id' || name === 'type' || name === 'time' || OWN_EXTENSIONS.has(name)) continue;
    cloudEvent[name] = value;
  }
  return {
    data,
    metadata: {
      headers: {
        id: a.id as string,
        time: text('time') ?? '',
        type: a.type as string,
        stream: text('subject') ?? '',
        ...(text(X.traceparent) ? { traceparent: text(X.traceparent)! } : {}),
        ...(text(X.tracestate) ? { tracestate: text(X.tracestate)! } : {}),
      },
      envelope: {
        specversion: '1.0',
        ...(checksum ? { checksum } : {}),
        ...(key !== undefined && sequence !== undefined ? { position: { key, sequence } } : {}),
      },
      domain,
      extensions: { ...own, [CLOUD_EVENT_EXTENSION]: cloudEvent },
    },
  };
}

/** Binary mode carries every attribute as a string: the integer and boolean extensions this codec wrote are typed again. */
function typedAttribute(name: string, text: string): CloudEventAttributeValue {
  if (INTEGER_EXTENSIONS.includes(name) && /^-?\d+$/.test(text)) return Number(text);
  if (name === X.published && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function readOwnExtensions(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined) return {};
  if (typeof raw !== 'string') return `its "${X.extensions}" attribute is not a string`;
  try {
    const value: unknown = JSON.parse(raw);
    if (isObject(value)) return value;
  } catch {
    // Reported below.
  }
  return `its "${X.extensions}" attribute is not a JSON object`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
