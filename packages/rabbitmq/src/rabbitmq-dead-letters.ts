/**
 * The dead-letter queue of a stream, `<stream>:dlq` (classic, durable). Letters come from two
 * places: `deadLetter()` (the handler gave up; headers say why, where and how often) and RabbitMQ
 * itself, when a message passed the group queue's `x-delivery-limit` (its consumers kept dying;
 * an `x-death` header says so). Listing and replaying read the queue on a channel of their own
 * and close it, which puts every letter not taken back in its place.
 */
import type { Connection, SyncMessage } from 'rabbitmq-client';
import type { DeadLetter } from '@protean-ts/core';
import { decodeBody, deliveryCountOf } from './rabbitmq-message-codec.js';
import type { RabbitMQNames } from './rabbitmq-names.js';

export const LETTER_HEADERS = {
  originalId: 'x-protean-original-id',
  stream: 'x-protean-stream',
  group: 'x-protean-group',
  error: 'x-protean-error',
  failedAt: 'x-protean-failed-at',
  deliveryCount: 'x-protean-delivery-count',
} as const;

export interface LetterInfo {
  originalId: string;
  stream: string;
  group: string;
  error: string;
  deliveryCount: number;
}

export function letterHeaders(info: LetterInfo): Record<string, unknown> {
  return {
    [LETTER_HEADERS.originalId]: info.originalId,
    [LETTER_HEADERS.stream]: info.stream,
    [LETTER_HEADERS.group]: info.group,
    [LETTER_HEADERS.error]: info.error,
    [LETTER_HEADERS.failedAt]: new Date().toISOString(),
    [LETTER_HEADERS.deliveryCount]: info.deliveryCount,
  };
}

/** Reads the letters of one dead-letter queue; `visit` decides per letter whether to take it (ack) or leave it. */
export async function visitLetters(
  connection: Connection,
  names: RabbitMQNames,
  stream: string,
  limit: number,
  deliveryLimit: number,
  visit: (letter: DeadLetter, message: SyncMessage) => Promise<boolean>,
): Promise<number> {
  const channel = await connection.acquire();
  let taken = 0;
  try {
    for (let seen = 0; seen < limit; seen += 1) {
      const message = await channel.basicGet({ queue: names.deadLetterQueue(stream) });
      if (!message) break;
      if (await visit(toDeadLetter(names, stream, message, deliveryLimit), message)) {
        channel.basicAck({ deliveryTag: message.deliveryTag });
        taken += 1;
      }
    }
  } finally {
    if (channel.active) await channel.close().catch(() => undefined);
  }
  return taken;
}

function toDeadLetter(names: RabbitMQNames, stream: string, message: SyncMessage, deliveryLimit: number): DeadLetter {
  const headers = (message.headers ?? {}) as Record<string, unknown>;
  const decoded = decodeBody(message.body);
  const id = message.messageId ?? `tag-${message.deliveryTag}`;
  const base = decoded.ok ? { envelope: decoded.envelope } : { envelope: null, rawFields: ['body', decoded.raw] };
  if (typeof headers[LETTER_HEADERS.originalId] === 'string') {
    return {
      id,
      originalId: String(headers[LETTER_HEADERS.originalId]),
      stream: String(headers[LETTER_HEADERS.stream] ?? stream),
      group: String(headers[LETTER_HEADERS.group] ?? ''),
      ...base,
      error: String(headers[LETTER_HEADERS.error] ?? ''),
      failedAt: String(headers[LETTER_HEADERS.failedAt] ?? ''),
      deliveryCount: Number(headers[LETTER_HEADERS.deliveryCount] ?? 1),
    };
  }
  // Dead-lettered by RabbitMQ (x-delivery-limit): the original message, with an x-death record.
  const death = Array.isArray(headers['x-death']) ? (headers['x-death'][0] as Record<string, unknown> | undefined) : undefined;
  const queue = String(death?.queue ?? '');
  const groupPrefix = names.groupQueue(stream, '');
  // RabbitMQ drops x-delivery-count when it dead-letters; past the limit means limit + 1 deliveries.
  const counted = deliveryCountOf(headers, message.redelivered);
  const deliveryCount = death?.reason === 'delivery_limit' ? Math.max(counted, deliveryLimit + 1) : counted;
  const time = death?.time;
  return {
    id,
    originalId: id,
    stream,
    group: queue.startsWith(groupPrefix) ? queue.slice(groupPrefix.length) : queue,
    ...base,
    error: `dead-lettered by RabbitMQ (${String(death?.reason ?? 'unknown reason')}): delivered ${deliveryCount} times without an ack; its consumers stopped each time`,
    failedAt:
      time instanceof Date
        ? time.toISOString()
        : typeof time === 'number'
          ? new Date(time * 1000).toISOString()
          : new Date(message.timestamp ? message.timestamp * 1000 : Date.now()).toISOString(),
    deliveryCount,
  };
}
