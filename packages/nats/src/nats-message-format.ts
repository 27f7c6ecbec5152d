/**
 * How one NATS broker writes and reads payloads, chosen once from `message_format`: the
 * protean-ts envelope as JSON (the default), or CloudEvents in `cloudevents_mode`.
 */
import type { MsgHdrs } from '@nats-io/transport-node';
import type { MessageEnvelope, MessageFormatSettings } from '@protean-ts/core';
import { decodeCloudEvent, encodeCloudEvent } from './nats-cloud-event-codec.js';
import type { NatsDelivery } from './nats-delivery.js';
import { decodeEnvelope, type DecodedPayload } from './nats-envelope.js';

export interface NatsMessageFormat {
  encode(envelope: MessageEnvelope): { payload: string; headers?: MsgHdrs };
  decode(delivery: Pick<NatsDelivery, 'data' | 'headers'>): DecodedPayload;
}

export function natsMessageFormat(format: MessageFormatSettings): NatsMessageFormat {
  if (format.format === 'envelope')
    return { encode: (envelope) => ({ payload: JSON.stringify(envelope) }), decode: (delivery) => decodeEnvelope(delivery.data) };
  return { encode: (envelope) => encodeCloudEvent(envelope, format), decode: decodeCloudEvent };
}
