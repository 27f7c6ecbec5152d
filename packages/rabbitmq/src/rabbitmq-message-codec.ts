/**
 * Envelopes on the wire: the whole `{ data, metadata }` as a JSON body (content type
 * `application/json`, so any AMQP client can read it), the broker's message id as the AMQP
 * `message-id`, the message type as `type`, persistent. Decoding never throws: a body that is not
 * an envelope comes back as `undecodable` with its text, to be dead-lettered on its own.
 */
import type { Envelope, MessageBody } from 'rabbitmq-client';
import { brokerEnvelopeProblem, type MessageEnvelope } from '@protean-ts/core';

export type Decoded = { ok: true; envelope: MessageEnvelope } | { ok: false; reason: string; raw: string };

export function encodeEnvelope(envelope: MessageEnvelope): Buffer {
  return Buffer.from(JSON.stringify(envelope));
}

/** AMQP properties of a message published by this broker. */
export function messageProperties(id: string, envelope: MessageEnvelope, extraHeaders: Record<string, unknown> = {}): Envelope {
  const headers = envelope.metadata?.headers as { type?: unknown } | undefined;
  return {
    messageId: id,
    contentType: 'application/json',
    durable: true,
    timestamp: Math.floor(Date.now() / 1000),
    ...(typeof headers?.type === 'string' ? { type: headers.type } : {}),
    ...(Object.keys(extraHeaders).length ? { headers: extraHeaders } : {}),
  };
}

/** rabbitmq-client parses `application/json` bodies itself; anything it could not parse stays bytes. */
export function decodeBody(body: MessageBody): Decoded {
  let value: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const text = body.toString();
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'the body is not JSON', raw: text };
    }
  }
  const reason = whyNotAnEnvelope(value);
  if (reason) return { ok: false, reason, raw: rawText(body) };
  return { ok: true, envelope: value as MessageEnvelope };
}

export function rawText(body: MessageBody): string {
  if (Buffer.isBuffer(body) || typeof body === 'string') return body.toString();
  return JSON.stringify(body) ?? String(body);
}

function whyNotAnEnvelope(value: unknown): string | null {
  const problem = brokerEnvelopeProblem(value);
  return problem === null ? null : `the envelope ${problem}`;
}

/** 1 for a first delivery; quorum queues count earlier failed deliveries in `x-delivery-count`. */
export function deliveryCountOf(headers: Record<string, unknown> | undefined, redelivered: boolean): number {
  const counted = Number(headers?.['x-delivery-count']);
  if (Number.isSafeInteger(counted) && counted >= 0) return counted + 1;
  return redelivered ? 2 : 1;
}
