/**
 * A delivery that is no message this broker can read (not an envelope, or a malformed CloudEvent
 * on a `message_format = "cloudevents"` broker): raw to the dead-letter queue, then acked. When
 * the letter cannot be written it goes back to its queue for another try, up to
 * UNDECODABLE_DEAD_LETTER_DELIVERIES deliveries; then it is acked without a letter, with one
 * ERROR naming it, so it never loops.
 */
import type { AsyncMessage, Channel, SyncMessage } from 'rabbitmq-client';
import type { Logger } from '@protean-ts/core';
import { letterHeaders } from './rabbitmq-dead-letters.js';
import { deliveryCountOf, rawText } from './rabbitmq-message-codec.js';
import type { RabbitMQNames } from './rabbitmq-names.js';
import type { ConfirmingPublisher } from './rabbitmq-publisher.js';
import type { RabbitMQTopology } from './rabbitmq-topology.js';

/** Deliveries of an undecodable message whose dead letter could not be written before it is acked without one. */
export const UNDECODABLE_DEAD_LETTER_DELIVERIES = 5;
/** How much of a dropped message's body its ERROR log quotes. */
const DROPPED_BODY_LOGGED_CHARS = 1_000;

/** What dead-lettering needs from its broker. */
export interface UndecodableDeadLettering {
  names: RabbitMQNames;
  topology: RabbitMQTopology;
  publisher: ConfirmingPublisher;
  log: Logger;
  nextId: () => string;
  isConnectionError: (error: unknown) => boolean;
}

export interface UndecodableDelivery {
  stream: string;
  group: string;
  channel: Channel;
  delivery: SyncMessage | AsyncMessage;
  id: string;
  reason: string;
}

export async function deadLetterUndecodable(
  broker: UndecodableDeadLettering,
  { stream, group, channel, delivery, id, reason }: UndecodableDelivery,
): Promise<void> {
  const { names, log } = broker;
  const error = `UndecodableEntryError: message ${id} of stream "${stream}" (group "${group}") cannot be decoded: ${reason}`;
  const deliveryCount = deliveryCountOf(delivery.headers as Record<string, unknown> | undefined, delivery.redelivered);
  const where = { stream, group, id, reason, deliveryCount };
  try {
    await broker.topology.ensureDeadLetterQueue(stream);
    const headers = letterHeaders({ originalId: id, stream, group, error, deliveryCount });
    // The bytes as they came (rabbitmq-client hands over a parsed body for application/json).
    const body = Buffer.isBuffer(delivery.body) ? delivery.body : Buffer.from(rawText(delivery.body));
    await broker.publisher.publish('', names.deadLetterQueue(stream), body, { messageId: broker.nextId(), durable: true, headers });
    channel.basicAck({ deliveryTag: delivery.deliveryTag });
    log.warn('undecodable message moved to the dead-letter queue', { ...where, deadLetterQueue: names.deadLetterQueue(stream) });
  } catch (err) {
    if (!channel.active) return; // Back in its queue with the channel.
    // An outage is no reason to give up on it: it is redelivered once RabbitMQ is back.
    if (deliveryCount < UNDECODABLE_DEAD_LETTER_DELIVERIES || broker.isConnectionError(err)) {
      log.error('could not dead-letter an undecodable message; it goes back to its queue', { ...where, error: err });
      channel.basicNack({ deliveryTag: delivery.deliveryTag, requeue: true });
      return;
    }
    channel.basicAck({ deliveryTag: delivery.deliveryTag });
    log.error('undecodable message dropped: it could not be dead-lettered on any of its deliveries; acked so it does not loop', {
      ...where,
      deadLetterError: err,
      // Gone from RabbitMQ once acked: the log keeps the start of what it held.
      bodyStart: rawText(delivery.body).slice(0, DROPPED_BODY_LOGGED_CHARS),
      hint: `fix what makes dead-lettering to "${names.deadLetterQueue(stream)}" fail (see deadLetterError), and the producer that sent message ${id}`,
    });
  }
}
