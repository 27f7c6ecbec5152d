import { afterAll, describe } from 'vitest';
import { describeBrokerConformance, RABBITMQ, servicesUp } from '@protean-ts/core/testing';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('conformance') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

describe.skipIf(!up)('rabbitmq broker', () => {
  describeBrokerConformance('rabbitmq', () => new RabbitMQBroker('conformance', { provider: 'rabbitmq', uri: rabbitUri(vhost) }), {
    capabilities: ['PUBLISH', 'CONSUMER_GROUPS', 'ACK_NACK', 'BLOCKING_READ', 'DEAD_LETTER_QUEUE', 'DURABLE', 'DISTRIBUTED'],
  });
});
