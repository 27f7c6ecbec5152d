/**
 * Publishing with publisher confirms and `mandatory`: a publish resolves only once RabbitMQ has
 * taken responsibility for the message (for a quorum queue: a majority wrote it), and a message
 * no queue would take comes back as `basic.return` before its confirm, so it fails instead of
 * vanishing. The outbox marks a row published only after this resolved.
 */
import type { Channel, Envelope, MessageBody, ReturnedMessage } from 'rabbitmq-client';
import { LazyChannel } from './rabbitmq-channels.js';
import type { Connection } from 'rabbitmq-client';

export class UnroutableMessageError extends Error {
  constructor(exchange: string, routingKey: string, reply: string) {
    super(
      `RabbitMQ returned the message as unroutable (${reply}): exchange "${exchange}" has no queue bound for routing key "${routingKey}"; ` +
        'bind a queue to it (a consumer group, or the queue of the external system reading it) before publishing',
    );
    this.name = 'UnroutableMessageError';
  }
}

export class ConfirmingPublisher {
  private readonly channel: LazyChannel;
  /** Message ids RabbitMQ returned; checked when their confirm arrives (the return always comes first). */
  private readonly returned = new Map<string, ReturnedMessage>();

  constructor(connection: () => Connection) {
    this.channel = new LazyChannel(connection, async (channel: Channel) => {
      await channel.confirmSelect();
      channel.on('basic.return', (message) => {
        if (message.messageId) this.returned.set(message.messageId, message);
      });
    });
  }

  /** `properties.messageId` must be set: it is how a return is matched to its publish. */
  async publish(exchange: string, routingKey: string, body: MessageBody, properties: Envelope): Promise<void> {
    const id = properties.messageId;
    const channel = await this.channel.get();
    try {
      await channel.basicPublish({ ...properties, exchange, routingKey, mandatory: true }, body);
    } catch (err) {
      if (id !== undefined) this.returned.delete(id);
      throw err;
    }
    // rabbitmq-client emits basic.return with setImmediate, after the confirm has resolved us.
    await new Promise((resolve) => setImmediate(resolve));
    const returned = id === undefined ? undefined : this.returned.get(id);
    if (returned) {
      this.returned.delete(id!);
      throw new UnroutableMessageError(exchange, routingKey, `${returned.replyCode} ${returned.replyText}`);
    }
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}
