/**
 * The AsyncAPI message of a published event on a broker with `message_format = "cloudevents"`:
 * structured mode sends the whole CloudEvent as `application/cloudevents+json`; binary mode sends
 * `data` alone as `application/json` with every attribute in a header (a Redis entry field),
 * under each broker's prefix (docs/cloudevents.md, "Mapping of the envelope" and "On the wire").
 */
import { ENVELOPE_EXTENSIONS as X, type MessageFormatSettings } from '@protean-ts/core';
import type { MessageContract } from './contracts-document.js';
import type { JsonSchema } from './json-schema.js';

/** Header (or entry field) name prefix of binary mode per provider: the adapters' codecs write these. */
const BINARY_PREFIX: Record<string, string> = { redis: 'ce_', rabbitmq: 'cloudEvents_', nats: 'ce-' };

interface Attribute {
  schema: JsonSchema;
  description: string;
}

/** The attributes protean-ts sends for `message`, with their JSON types (structured mode). */
function attributesOf(message: MessageContract, source: string): Record<string, Attribute> {
  const text = { type: 'string' };
  return {
    specversion: { schema: { const: '1.0' }, description: 'CloudEvents version' },
    id: { schema: { ...text, minLength: 1 }, description: 'The message id; unique with source' },
    source: {
      schema: source ? { const: source } : { ...text, format: 'uri-reference' },
      description: source ? 'cloudevents_source of the broker' : '/<domain>/<stream category>, each part URI-encoded',
    },
    type: { schema: { const: message.type }, description: '<Domain>.<Event>.v<version>' },
    time: { schema: { ...text, format: 'date-time' }, description: 'When the event was raised' },
    subject: { schema: text, description: "The aggregate's stream, <category>-<aggregate id>" },
    [X.correlationId]: { schema: text, description: 'Correlation id of the causal chain' },
    [X.causationId]: { schema: text, description: 'Id of the message that caused this one' },
    [X.traceparent]: { schema: text, description: 'W3C trace context (Distributed Tracing extension)' },
    [X.tracestate]: { schema: text, description: 'W3C trace state' },
    [X.positionKey]: { schema: text, description: 'Partition key: the aggregate stream (Partitioning extension)' },
    [X.positionSequence]: { schema: { type: 'integer', minimum: 1 }, description: "The event's place among its key's messages on this broker" },
    [X.fqn]: { schema: { const: message.fqn }, description: 'Fully qualified name of the event class' },
    [X.kind]: { schema: { const: 'EVENT' }, description: 'Message kind' },
    [X.streamCategory]: { schema: { const: message.streamCategory ?? message.fqn }, description: 'Stream category' },
    [X.version]: { schema: { const: message.version }, description: 'Version of the event class' },
    [X.published]: { schema: { const: true }, description: 'Published for other systems' },
    [X.extensions]: { schema: text, description: 'The envelope extensions as JSON, when any' },
  };
}

const REQUIRED = ['specversion', 'id', 'source', 'type'];

/** `contentType`, `payload` and, in binary mode, `headers` of the AsyncAPI message. */
export function cloudEventMessage(message: MessageContract, data: JsonSchema, format: MessageFormatSettings, provider: string): Record<string, unknown> {
  const attributes = attributesOf(message, format.source);
  if (format.mode === 'structured') {
    const properties = Object.fromEntries(Object.entries(attributes).map(([name, a]) => [name, { ...a.schema, description: a.description }]));
    return {
      contentType: 'application/cloudevents+json',
      payload: {
        type: 'object',
        description: 'A CloudEvent 1.0 in structured mode: its attributes and the event in `data`.',
        required: [...REQUIRED, 'data'],
        properties: { ...properties, datacontenttype: { const: 'application/json' }, data },
      },
    };
  }
  const prefix = BINARY_PREFIX[provider] ?? 'ce_';
  // In binary mode every attribute is a header, so every value travels as a string.
  const asText = (schema: JsonSchema): JsonSchema =>
    'const' in schema ? { type: 'string', const: String(schema.const) } : schema.type === 'string' ? schema : { type: 'string', pattern: '^[0-9]+$' };
  return {
    contentType: 'application/json',
    headers: {
      type: 'object',
      description: `The CloudEvent's attributes in binary mode, each a header named ${prefix}<attribute>.`,
      required: REQUIRED.map((name) => `${prefix}${name}`),
      properties: Object.fromEntries(Object.entries(attributes).map(([name, a]) => [`${prefix}${name}`, { ...asText(a.schema), description: a.description }])),
    },
    payload: data,
  };
}
