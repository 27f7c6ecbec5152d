import { afterAll, describe } from 'vitest';
import { describeBrokerConformance, NATS, servicesUp } from '@protean-ts/core/testing';
import { NatsBroker } from '../src/index.js';
import { deleteStreams, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('conformance');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

describe.skipIf(!up)('nats broker', () => {
  describeBrokerConformance('nats', () => new NatsBroker('conformance', { provider: 'nats', uri: NATS_URI, stream_prefix: prefix }), {
    capabilities: ['PUBLISH', 'CONSUMER_GROUPS', 'ACK_NACK', 'BLOCKING_READ', 'DEAD_LETTER_QUEUE', 'DURABLE', 'DISTRIBUTED'],
  });
});
