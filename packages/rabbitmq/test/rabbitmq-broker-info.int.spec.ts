/**
 * `info()` of a RabbitMQ broker, which connects to answer: unreachable it reports itself
 * disconnected; connected it shows its settings, management_uri with the password masked.
 * (The settings themselves are checked without a connection in rabbitmq-broker-settings.unit.spec.ts.)
 */
import { describe, expect, it } from 'vitest';
import { RABBITMQ, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';

const up = await servicesUp(RABBITMQ);
const make = (settings: Record<string, unknown>) =>
  new RabbitMQBroker('events', { provider: 'rabbitmq', uri: 'amqp://guest:guest@127.0.0.1:5672', ...settings });

describe('rabbitmq broker info()', () => {
  it('reports connected: false when nothing answers', async () => {
    const broker = make({ uri: 'amqp://app:pw@127.0.0.1:1', connect_timeout_ms: 100 });
    try {
      expect((await broker.info()).connected).toBe(false);
    } finally {
      await broker.close();
    }
  });

  // With a 100 ms connect timeout a loaded CI machine once missed the connection: the default timeout here.
  it.skipIf(!up)('shows management_uri masked', async () => {
    const broker = make({ management_uri: 'http://guest:s3cret@127.0.0.1:15672' });
    try {
      const info = await broker.info();
      expect(info.details).toMatchObject({ managementUri: 'http://guest:***@127.0.0.1:15672', managementStatsIntervalMs: 5_000 });
      expect(JSON.stringify(info)).not.toContain('s3cret');
    } finally {
      await broker.close();
    }
  });
});
