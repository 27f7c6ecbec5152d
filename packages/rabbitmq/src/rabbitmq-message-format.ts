/**
 * How one RabbitMQ broker writes and reads message bodies, chosen once from `message_format`:
 * the protean-ts envelope as JSON (the default), or CloudEvents in `cloudevents_mode`.
 */
import type { Envelope, MessageBody } from 'rabbitmq-client';
import type { MessageEnvelope, MessageFormatSettings } from '@protean-ts/core';
import { decodeCloudEvent, encodeCloudEvent } from './rabbitmq-cloud-event-codec.js';
import { decodeBody, encodeEnvelope, messageProperties, type Decoded } from './rabbitmq-message-codec.js';

export interface RabbitMQMessageFormat {
  encode(id: string, envelope: MessageEnvelope): { body: Buffer; properties: Envelope };
  decode(delivery: Pick<Envelope, 'contentType' | 'headers'> & { body: MessageBody }): Decoded;
}

export function rabbitmqMessageFormat(format: MessageFormatSettings): RabbitMQMessageFormat {
  if (format.format === 'envelope') {
    return {
      encode: (id, envelope) => ({ body: encodeEnvelope(envelope), properties: messageProperties(id, envelope) }),
      decode: (delivery) => decodeBody(delivery.body),
    };
  }
  return {
    encode: (id, envelope) => {
      const { body, contentType, headers } = encodeCloudEvent(envelope, format);
      return { body, properties: { ...messageProperties(id, envelope, headers), contentType } };
    },
    decode: decodeCloudEvent,
  };
}
