import { afterAll, describe } from 'vitest';
import { Connection } from 'rabbitmq-client';
import type { Broker } from '@protean-ts/core';
import { describeBrokerConformance, RABBITMQ, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('conformance') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

/** A foreign producer: a confirmed basic.publish of `body` to the stream's exchange, as JSON like the broker's own. */
async function publishRaw(broker: Broker, stream: string, body: Buffer): Promise<void> {
  const connection = new Connection(rabbitUri(vhost));
  const publisher = connection.createPublisher({ confirm: true });
  try {
    await publisher.send(
      { exchange: (broker as RabbitMQBroker).names.exchange(stream), routingKey: stream, contentType: 'application/json', messageId: `raw-${Date.now()}` },
      body,
    );
  } finally {
    await publisher.close();
    await connection.close();
  }
}

describe.skipIf(!up)('rabbitmq broker', () => {
  describeBrokerConformance('rabbitmq', () => new RabbitMQBroker('conformance', { provider: 'rabbitmq', uri: rabbitUri(vhost) }), {
    capabilities: ['PUBLISH', 'CONSUMER_GROUPS', 'ACK_NACK', 'BLOCKING_READ', 'DEAD_LETTER_QUEUE', 'DURABLE', 'DISTRIBUTED', 'CONSUMER_LAG'],
    publishRaw,
  });
});
