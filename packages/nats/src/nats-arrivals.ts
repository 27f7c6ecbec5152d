/**
 * What a read does with each JetStream delivery: a message is held for its handler; one that is
 * no message (not an envelope, or a malformed CloudEvent on a `message_format = "cloudevents"`
 * broker) or was delivered `max_deliver` times goes to the dead-letter stream, raw.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger, ReceivedMessage } from '@protean-ts/core';
import type { NatsBrokerSettings } from './nats-broker-settings.js';
import { isNatsConnectionError } from './nats-connection-errors.js';
import type { NatsDeadLetters } from './nats-dead-letters.js';
import type { NatsDelivery } from './nats-delivery.js';
import type { NatsHeldMessages } from './nats-held-messages.js';
import type { NatsMessageFormat } from './nats-message-format.js';
import type { NatsNaming } from './nats-names.js';

/**
 * Deliveries of a message bound for the dead-letter stream whose letter could not be written
 * before it is terminated without one (with `max_deliver` lower, at its last delivery).
 */
export const DEAD_LETTER_WRITE_DELIVERIES = 5;

export interface NatsArrivalsOptions {
  config: NatsBrokerSettings;
  naming: NatsNaming;
  format: NatsMessageFormat;
  held: NatsHeldMessages;
  deadLetters: NatsDeadLetters;
  log: Logger;
  connection: () => NatsConnection;
  ackDelivery: (delivery: NatsDelivery) => Promise<void>;
}

export class NatsArrivals {
  private readonly config: NatsBrokerSettings;
  private readonly naming: NatsNaming;
  private readonly format: NatsMessageFormat;
  private readonly held: NatsHeldMessages;
  private readonly deadLetters: NatsDeadLetters;
  private readonly log: Logger;
  private readonly connection: () => NatsConnection;
  private readonly ackDelivery: (delivery: NatsDelivery) => Promise<void>;

  constructor(options: NatsArrivalsOptions) {
    ({
      config: this.config,
      naming: this.naming,
      format: this.format,
      held: this.held,
      deadLetters: this.deadLetters,
      log: this.log,
      connection: this.connection,
      ackDelivery: this.ackDelivery,
    } = options);
  }

  /**
   * Decodes a delivery; one that is not an envelope, or was delivered `max_deliver` times, goes to
   * the DLQ here, raw. Never throws for one message: when its letter cannot be written it is left
   * for a redelivery, and at its last one terminated with one ERROR naming it (see letterless()).
   */
  async accept(stream: string, group: string, consumer: string, delivery: NatsDelivery): Promise<ReceivedMessage | null> {
    const decoded = this.format.decode(delivery);
    const { maxDeliver } = this.config;
    if (decoded.envelope && (maxDeliver === 0 || delivery.deliveryCount <= maxDeliver)) {
      this.held.hold(stream, group, consumer, delivery);
      return { id: String(delivery.seq), stream, envelope: decoded.envelope, deliveryCount: delivery.deliveryCount };
    }
    const id = String(delivery.seq);
    const error = decoded.envelope
      ? `delivered ${delivery.deliveryCount} times without an ack (max_deliver = ${maxDeliver})`
      : `UndecodableEntryError: message ${id} of stream "${stream}" (group "${group}") cannot be decoded: ${decoded.error}`;
    const where = { stream, group, id, deliveryCount: delivery.deliveryCount, ...(decoded.envelope ? {} : { reason: decoded.error }) };
    try {
      await this.deadLetters.write(this.naming.stream(stream), {
        originalId: id,
        stream,
        group,
        error,
        failedAt: new Date().toISOString(),
        deliveryCount: delivery.deliveryCount,
        payload: decoded.envelope ? decoded.text : null,
        ...(decoded.envelope ? {} : { rawFields: ['data', decoded.text] }),
      });
      // A retried write after a lost ack is one letter (its msgID), so a failed ack is only redelivered.
      await this.ackDelivery(delivery);
    } catch (err) {
      await this.letterless(delivery, where, err);
      return null;
    }
    this.log.warn(
      decoded.envelope ? 'message moved to the dead-letter stream: max_deliver reached' : 'undecodable message moved to the dead-letter stream',
      where,
    );
    return null;
  }

  /** A message bound for the DLQ whose letter JetStream refused: redelivered after ack_wait, up to a bound; then terminated. */
  private async letterless(delivery: NatsDelivery, where: Record<string, unknown>, err: unknown): Promise<void> {
    const { maxDeliver } = this.config;
    const last = maxDeliver === 0 ? DEAD_LETTER_WRITE_DELIVERIES : Math.min(DEAD_LETTER_WRITE_DELIVERIES, maxDeliver + 1);
    // An outage is no reason to give up on it: the delivery comes back once NATS does.
    if (delivery.deliveryCount < last || isNatsConnectionError(err)) {
      this.log.error('could not dead-letter a message; JetStream redelivers it after ack_wait for another try', { ...where, error: err });
      return;
    }
    // +TERM: JetStream never delivers it again; it stays in the stream under its sequence until the stream's limits remove it.
    try {
      await this.connection().request(delivery.reply, '+TERM', { timeout: this.config.requestTimeoutMs });
    } catch (termError) {
      this.log.error('could not dead-letter a message, nor terminate it; JetStream redelivers it after ack_wait', { ...where, error: termError });
      return;
    }
    this.log.error('message dropped: it could not be dead-lettered on any of its deliveries; terminated so it does not loop', {
      ...where,
      deadLetterError: err,
      hint: `the message stays in its JetStream stream as sequence ${String(where.id)} until the stream's limits remove it; fix what makes dead-lettering fail (see deadLetterError)`,
    });
  }
}
