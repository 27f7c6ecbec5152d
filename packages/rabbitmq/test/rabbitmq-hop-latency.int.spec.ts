/**
 * A subscription handler acks its message and, moments later, its outbox publishes the next one
 * on the same connection. With Nagle's algorithm on, that publish waited for the TCP ACK of the
 * ack frame, which RabbitMQ delays by 40 ms since it has no reply to carry it: 40 ms every hop
 * (the shop's e2e at 10 orders/s took 570 ms an order on RabbitMQ against 50 ms on Redis).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RABBITMQ, sampleBrokerEnvelope, servicesUp } from '@protean-ts/core/testing';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('hop-latency') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.skipIf(!up)('rabbitmq hop latency', () => {
  it('confirms a publish sent right after an ack without waiting for a delayed TCP ACK', async () => {
    const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: rabbitUri(vhost) });
    try {
      const stream = 'hops';
      await broker.ensureGroup(stream, 'g');
      const confirms: number[] = [];
      for (let hop = 0; hop < 12; hop++) {
        const startedAt = performance.now();
        await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, hop) });
        confirms.push(performance.now() - startedAt);
        const [message] = await broker.read(stream, 'g', 'c', { count: 10, blockMs: 2_000 });
        await broker.ack(stream, 'g', [message!.id]);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      // Held back by Nagle, every confirm but the first took 40 ms or more.
      expect(median(confirms)).toBeLessThan(25);
    } finally {
      await broker.close();
    }
  });
});
