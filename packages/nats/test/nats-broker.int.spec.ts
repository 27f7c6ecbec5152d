import { afterAll, describe } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { Broker } from '@protean-ts/core';
import { describeBrokerConformance, NATS, servicesUp } from '@protean-ts/conformance';
import { NatsBroker } from '../src/index.js';
import { deleteStreams, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('conformance');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

/** A foreign producer on its own connection: a JetStream publish of `body` to the stream's subject. */
async function publishRaw(broker: Broker, stream: string, body: Buffer): Promise<void> {
  const nc = await connect({ servers: new URL(NATS_URI).host });
  try {
    await jetstream(nc).publish((broker as NatsBroker).namesOf(stream).subject, body);
  } finally {
    await nc.close();
  }
}

/** The server's max_payload: the largest message, dead letters included. */
async function maxPayload(): Promise<number> {
  const nc = await connect({ servers: new URL(NATS_URI).host });
  try {
    return nc.info!.max_payload;
  } finally {
    await nc.close();
  }
}

const payloadLimitBytes = up ? await maxPayload() : 0;

describe.skipIf(!up)('nats broker', () => {
  describeBrokerConformance('nats', () => new NatsBroker('conformance', { provider: 'nats', uri: NATS_URI, stream_prefix: prefix }), {
    capabilities: ['PUBLISH', 'CONSUMER_GROUPS', 'ACK_NACK', 'BLOCKING_READ', 'DEAD_LETTER_QUEUE', 'DURABLE', 'DISTRIBUTED', 'CONSUMER_LAG'],
    publishRaw,
    payloadLimitBytes,
  });
});
