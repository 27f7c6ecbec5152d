/**
 * A CloudEvent 1.0 as this codec builds and reads it: context attributes by their CloudEvents
 * names (extensions included), and JSON `data`. Brokers move it in structured mode (the whole
 * event as `application/cloudevents+json`) or binary mode (attributes as headers, `data` as body).
 */

/** A context attribute's value: CloudEvents' String, Integer and Boolean types. */
export type CloudEventAttributeValue = string | number | boolean;

export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time?: string;
  subject?: string;
  datacontenttype?: string;
  dataschema?: string;
  data?: unknown;
  /** Extension attributes (lower-case letters and digits), e.g. `traceparent`, `correlationid`. */
  [extension: string]: unknown;
}

/** `message_format` of a broker: protean-ts's own envelope, or CloudEvents 1.0. */
export type MessageFormat = 'envelope' | 'cloudevents';
/** `cloudevents_mode`: the whole event in the body, or attributes in headers and `data` in the body. */
export type CloudEventsMode = 'structured' | 'binary';

export const CLOUDEVENTS_JSON = 'application/cloudevents+json';
export const JSON_CONTENT_TYPE = 'application/json';

/**
 * The envelope parts carried as extension attributes (CloudEvents names: lower-case letters and
 * digits, at most 20 characters). `traceparent` and `tracestate` are the Distributed Tracing
 * extension's; `partitionkey` the Partitioning extension's.
 */
export const ENVELOPE_EXTENSIONS = {
  correlationId: 'correlationid',
  causationId: 'causationid',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  positionKey: 'partitionkey',
  positionSequence: 'streamposition',
  fqn: 'proteanfqn',
  kind: 'proteankind',
  streamCategory: 'proteancategory',
  version: 'proteanversion',
  stream: 'proteanstream',
  checksum: 'proteanchecksum',
  sequenceId: 'proteanseqid',
  expectedVersion: 'proteanexpversion',
  published: 'proteanpublished',
  extensions: 'proteanextensions',
} as const;

/** Is `contentType` (a header's value, parameters allowed) JSON, so `data` can become an event's fields? */
export function isJsonContentType(contentType: string): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === JSON_CONTENT_TYPE || media.endsWith('+json') || media === 'text/json';
}
