/**
 * From the domain's envelope to a CloudEvent: the headers become the core attributes, and the
 * rest of the envelope rides in extension attributes, so a protean-ts reader gets the same
 * envelope back (`cloudEventToEnvelope`) while any other reader sees a plain CloudEvent.
 */
import type { MessageEnvelope } from '../envelope.js';
import { ENVELOPE_EXTENSIONS as X, JSON_CONTENT_TYPE, type CloudEvent, type CloudEventAttributeValue } from './cloud-event.js';

/** The extensions key holding a read CloudEvent's attributes; not sent again. */
export const CLOUD_EVENT_EXTENSION = 'cloudEvent';

/** `source` when `cloudevents_source` is not set: the domain and the event's stream category. */
export function defaultSource(envelope: MessageEnvelope): string {
  const { fqn, streamCategory } = envelope.metadata.domain;
  const dot = fqn.lastIndexOf('.');
  const domain = dot > 0 ? fqn.slice(0, dot) : fqn;
  return `/${encodeURIComponent(domain)}/${encodeURIComponent(streamCategory)}`;
}

export function envelopeToCloudEvent(envelope: MessageEnvelope, source = ''): CloudEvent {
  const { headers, domain, envelope: info, extensions } = envelope.metadata;
  const event: CloudEvent = {
    specversion: '1.0',
    id: headers.id,
    source: source || defaultSource(envelope),
    type: headers.type,
    ...(headers.time ? { time: headers.time } : {}),
    ...(headers.stream ? { subject: headers.stream } : {}),
    datacontenttype: JSON_CONTENT_TYPE,
    data: envelope.data,
  };
  const put = (name: string, value: CloudEventAttributeValue | null | undefined): void => {
    if (value !== null && value !== undefined && value !== '') event[name] = value;
  };
  put(X.correlationId, domain.correlationId);
  put(X.causationId, domain.causationId);
  put(X.traceparent, headers.traceparent);
  put(X.tracestate, headers.tracestate);
  put(X.positionKey, info.position?.key);
  put(X.positionSequence, info.position?.sequence);
  put(X.fqn, domain.fqn);
  put(X.kind, domain.kind);
  put(X.streamCategory, domain.streamCategory);
  put(X.version, domain.version);
  put(X.checksum, info.checksum);
  put(X.sequenceId, domain.sequenceId);
  put(X.expectedVersion, domain.expectedVersion);
  put(X.published, domain.published);
  const { [CLOUD_EVENT_EXTENSION]: _read, ...own } = extensions ?? {};
  if (Object.keys(own).length > 0) event[X.extensions] = JSON.stringify(own);
  return event;
}

/** Binary mode: every attribute but `data` as a string (CloudEvents' canonical string forms), and `data` as the JSON body. */
export interface BinaryCloudEvent {
  attributes: Record<string, string>;
  contentType: string;
  body: string;
}

export function toBinaryCloudEvent(event: CloudEvent): BinaryCloudEvent {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(event)) {
    if (name === 'data' || name === 'datacontenttype' || value === undefined) continue;
    attributes[name] = String(value);
  }
  return { attributes, contentType: event.datacontenttype ?? JSON_CONTENT_TYPE, body: JSON.stringify(event.data ?? null) };
}
