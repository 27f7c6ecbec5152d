/**
 * One JetStream delivery of a message to a pull consumer, read from its ack subject
 * (`$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`, or
 * the newer form with a domain and account hash before the stream). Acks, naks and progress
 * notes are messages sent to that subject from any connection of the same account.
 */
import type { Msg } from '@nats-io/transport-node';

export interface NatsDelivery {
  /** Stream sequence: the message's id in the protean port. */
  seq: number;
  /** 1 on the first delivery, up by one with each redelivery. */
  deliveryCount: number;
  /** The ack subject of this delivery. */
  reply: string;
  /** The payload exactly as published. */
  data: Uint8Array;
  /** The message's headers, first value of each (a binary-mode CloudEvent's `ce-` attributes); absent when it has none. */
  headers?: Record<string, string>;
}

export function parseDelivery(msg: Msg): NatsDelivery | null {
  const reply = msg.reply;
  if (!reply?.startsWith('$JS.ACK.')) return null;
  const tokens = reply.split('.');
  // v1: $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.… (9 tokens); v2 adds domain and hash.
  const at = tokens.length === 9 ? 4 : 6;
  const deliveryCount = Number(tokens[at]);
  const seq = Number(tokens[at + 1]);
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(deliveryCount)) return null;
  const delivery: NatsDelivery = { seq, deliveryCount, reply, data: msg.data };
  if (msg.headers) delivery.headers = Object.fromEntries(msg.headers.keys().map((key) => [key, msg.headers!.get(key)]));
  return delivery;
}
