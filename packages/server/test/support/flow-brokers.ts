/**
 * The three brokers a flow-control test runs on, each isolated for one test: a Redis stream
 * prefix, a RabbitMQ virtual host of its own, a NATS JetStream stream prefix (its streams and
 * consumer bucket deleted afterwards).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createRabbitmqVhost, deleteRabbitmqVhost, NATS, RABBITMQ, REDIS, rabbitmqUri, type ServiceCheck } from '@protean-ts/conformance';
import '@protean-ts/nats';
import '@protean-ts/rabbitmq';
import { REDIS_URI, uniquePrefix } from './real-services.js';

export type FlowBrokerName = 'redis' | 'rabbitmq' | 'nats';

export interface FlowBroker {
  /** `[brokers.default]` for this test. */
  settings: Record<string, unknown>;
  cleanUp(): Promise<void>;
}

export const FLOW_BROKER_SERVICES: Record<FlowBrokerName, ServiceCheck> = { redis: REDIS, rabbitmq: RABBITMQ, nats: NATS };

export async function flowBroker(name: FlowBrokerName, label: string): Promise<FlowBroker> {
  const prefix = uniquePrefix(label);
  if (name === 'redis') return { settings: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix }, cleanUp: async () => {} };
  if (name === 'nats') {
    const natsPrefix = prefix.replace(/[^\w-]/g, '_');
    const settings = { provider: 'nats', uri: 'nats://127.0.0.1:4222', stream_prefix: natsPrefix, subject_prefix: natsPrefix };
    return { settings, cleanUp: () => deleteNatsStreams(natsPrefix) };
  }
  const vhost = await createRabbitmqVhost(label);
  return { settings: { provider: 'rabbitmq', uri: rabbitmqUri(vhost) }, cleanUp: () => deleteRabbitmqVhost(vhost) };
}

async function deleteNatsStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: '127.0.0.1:4222' });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix) || name === `KV_${prefix}protean_consumers`) await jsm.streams.delete(name).catch(() => undefined);
    }
  } finally {
    await nc.close();
  }
}
