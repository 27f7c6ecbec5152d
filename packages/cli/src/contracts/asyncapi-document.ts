/**
 * An AsyncAPI 3.0 document per external broker (`outbox.external_brokers`): the events declared
 * `published: true` are what other systems receive there, one channel per stream category. By
 * default a message travels as one JSON body, the envelope `{ data, metadata }` with internal
 * details stripped (core's messages/strip-envelope.ts), so the payload describes that envelope:
 * `data` is the event's own schema, `metadata` its headers and routing data. A broker with
 * `message_format = "cloudevents"` sends CloudEvents instead (asyncapi-cloudevents.ts).
 */
import { readMessageFormatSettings, type BrokerSettings, type MessageFormatSettings } from '@protean-ts/core';
import { cloudEventMessage } from './asyncapi-cloudevents.js';
import type { ContractsDocument, MessageContract } from './contracts-document.js';
import type { JsonSchema } from './json-schema.js';

export type AsyncApiDocument = Record<string, unknown>;

const PROTOCOLS: Record<string, string> = { redis: 'redis', rabbitmq: 'amqp', nats: 'nats' };
/** AsyncAPI component and channel keys allow letters, digits, `.`, `-` and `_` only. */
const keyOf = (text: string): string => text.replace(/[^A-Za-z0-9._-]/g, '_');

export interface AsyncApiInput {
  contracts: ContractsDocument;
  broker: { name: string; settings: BrokerSettings };
  /** The version of the application the document describes (`info.version`). */
  version: string;
}

export function asyncApiDocument({ contracts, broker, version }: AsyncApiInput): AsyncApiDocument {
  const format = readMessageFormatSettings(broker.name, broker.settings);
  const published = contracts.messages.filter((message) => message.kind === 'event' && message.published);
  const byCategory = new Map<string, MessageContract[]>();
  for (const message of published) {
    const category = message.streamCategory ?? message.fqn;
    byCategory.set(category, [...(byCategory.get(category) ?? []), message]);
  }
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const [category, messages] of byCategory) {
    const channel = keyOf(category);
    channels[channel] = {
      address: category,
      title: `Events of ${category}`,
      servers: [{ $ref: `#/servers/${keyOf(broker.name)}` }],
      messages: Object.fromEntries(messages.map((m) => [keyOf(m.type), { $ref: `#/components/messages/${keyOf(m.type)}` }])),
    };
    operations[`send_${channel}`] = {
      action: 'send',
      summary: `${contracts.domain} publishes the events of ${category}`,
      channel: { $ref: `#/channels/${channel}` },
      messages: messages.map((m) => ({ $ref: `#/channels/${channel}/messages/${keyOf(m.type)}` })),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: `${contracts.domain} published events on ${broker.name}`,
      version,
      description: `Events ${contracts.domain} publishes for other systems on its external broker "${broker.name}" (${broker.settings.provider}).`,
    },
    defaultContentType: 'application/json',
    servers: { [keyOf(broker.name)]: serverOf(broker.settings) },
    channels,
    operations,
    components: {
      messages: Object.fromEntries(published.map((m) => [keyOf(m.type), messageComponent(m, format, broker.settings.provider)])),
      ...(format.format === 'envelope' ? { schemas: { Metadata: metadataSchema() } } : {}),
    },
  };
}

function serverOf(settings: BrokerSettings): Record<string, unknown> {
  let host = 'localhost';
  if (typeof settings.uri === 'string') {
    try {
      const url = new URL(settings.uri);
      host = url.host || host; // the host only: credentials in the URI stay out of the document
    } catch {
      // Not a URL (a cluster list, say): the provider still names the protocol.
    }
  }
  return { host, protocol: PROTOCOLS[settings.provider] ?? settings.provider, description: `protean-ts broker provider "${settings.provider}"` };
}

function messageComponent(message: MessageContract, format: MessageFormatSettings, provider: string): Record<string, unknown> {
  const { $schema: _dialect, $id: _id, title: _title, ...data } = message.schema;
  const named = {
    name: message.type,
    title: message.name,
    summary: `${message.fqn}, version ${message.version}${message.aggregate ? `, raised by ${message.aggregate}` : ''}`,
  };
  if (format.format === 'cloudevents') return { ...named, ...cloudEventMessage(message, data, format, provider) };
  return {
    ...named,
    contentType: 'application/json',
    payload: {
      type: 'object',
      description: 'The protean-ts envelope: the event in `data`, its headers and routing data in `metadata`.',
      required: ['data', 'metadata'],
      properties: { data, metadata: { $ref: '#/components/schemas/Metadata' } },
    },
  };
}

/** The stripped envelope's metadata (core's messages/envelope.ts, without checksum, sequence and expected version). */
function metadataSchema(): JsonSchema {
  const text = { type: 'string' };
  const optionalText = { type: ['string', 'null'] };
  return {
    type: 'object',
    required: ['headers', 'envelope', 'domain'],
    properties: {
      headers: {
        type: 'object',
        required: ['id', 'time', 'type', 'stream'],
        properties: {
          id: { ...text, description: 'Unique message id (uuid)' },
          time: { ...text, format: 'date-time', description: 'Creation time' },
          type: { ...text, description: '<Domain>.<Event>.v<N>' },
          stream: { ...text, description: 'The aggregate stream, <category>-<aggregate id>' },
          traceparent: { ...optionalText, description: 'W3C trace context' },
          tracestate: optionalText,
        },
      },
      envelope: { type: 'object', properties: { specversion: { const: '1.0' } } },
      domain: {
        type: 'object',
        required: ['fqn', 'kind', 'streamCategory', 'version'],
        properties: {
          fqn: text,
          kind: { enum: ['EVENT', 'COMMAND'] },
          streamCategory: text,
          version: { type: 'integer', minimum: 1 },
          correlationId: optionalText,
          causationId: optionalText,
          published: { type: 'boolean' },
        },
      },
      extensions: { type: 'object' },
    },
  };
}
