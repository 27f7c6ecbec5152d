/**
 * A subscription handler acks its message and, moments later, its outbox publishes the next one
 * on the same connection. With Nagle's algorithm on, that publish waited for the TCP ACK of the
 * ack frame, which RabbitMQ delays by 40 ms since it has no reply to carry it: 40 ms every hop
 * (the shop's e2e at 10 orders/s took 570 ms an order on RabbitMQ against 50 ms on Redis; see
 * bench/README.md, "e2e on RabbitMQ"). rabbitmq-client leaves Nagle on unless told; this checks
 * the adapter's socket is told, without timing anything (the latency itself is for the bench).
 */
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RABBITMQ, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('hop-latency') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));
afterEach(() => vi.restoreAllMocks());

describe.skipIf(!up)('rabbitmq connection', () => {
  it('turns Nagle off on its socket, so a publish right after an ack is not held back', async () => {
    const setNoDelay = vi.spyOn(net.Socket.prototype, 'setNoDelay');
    const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: rabbitUri(vhost) });
    try {
      await broker.connect();
      expect(await broker.ping()).toBe(true);
      expect(setNoDelay.mock.calls.length).toBeGreaterThan(0);
      expect(setNoDelay.mock.calls.every(([on]) => on === true)).toBe(true);
    } finally {
      await broker.close();
    }
  });
});
