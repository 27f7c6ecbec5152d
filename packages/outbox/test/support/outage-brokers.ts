/**
 * The brokers the outage suite takes away and brings back, one adapter each: how to make the
 * broker unreachable without touching a shared server, how to read back what subscribers got,
 * and what each broker promises about repeats after a cut.
 */
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Broker, MessageEnvelope } from '@protean-ts/core';
import { createRabbitmqVhost, deleteRabbitmqVhost, NATS, RABBITMQ, type ServiceCheck } from '@protean-ts/conformance';
import { NatsBroker } from '@protean-ts/nats';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { drainStream, redisBroker } from './real-services.js';
import { TcpProxy } from './tcp-proxy.js';
import { ThrowawayRedis } from './throwaway-redis.js';

/** The stream every outbox row of the suite goes to (RowFactory's category). */
export const OUTAGE_STREAM = 'conformance::thing';

export interface OutageBroker {
  broker: Broker;
  /** Makes the broker unreachable: connections dropped, new ones refused. */
  cut(): Promise<void>;
  /** Makes it reachable again, on the same address. */
  restore(): Promise<void>;
  /** Every envelope a subscriber of OUTAGE_STREAM received, oldest first. */
  delivered(): Promise<MessageEnvelope[]>;
  close(): Promise<void>;
}

export interface OutageBrokerKind {
  kind: 'redis' | 'nats' | 'rabbitmq';
  /** Shared services it needs besides PostgreSQL. */
  services: ServiceCheck[];
  /**
   * True when a message arrives once even across the cut. RabbitMQ is at-least-once: a publish
   * whose confirm was cut off is published again, so a repeat is allowed there (a loss never is).
   */
  exactlyOnce: boolean;
  open(brokerName: string): Promise<OutageBroker>;
}

/** A redis-server of the test's own (append-only file on), stopped and restarted on the same port. */
const redis: OutageBrokerKind = {
  kind: 'redis',
  services: [],
  exactlyOnce: true,
  async open(brokerName) {
    const server = await ThrowawayRedis.start();
    const broker = redisBroker(brokerName, 'outage:', server.uri);
    await broker.connect();
    return {
      broker,
      cut: () => server.stop(),
      restore: () => server.start(),
      // Redis kept its data across the restart, so everything published is still on the stream.
      delivered: () => drainStream(broker, OUTAGE_STREAM),
      close: async () => {
        await broker.close();
        await server.destroy();
      },
    };
  },
};

/**
 * The shared nats-server behind a TCP proxy of the test's own. A publish whose answer was lost in
 * the cut is sent again later under the same Nats-Msg-Id, and JetStream keeps one copy.
 */
const nats: OutageBrokerKind = {
  kind: 'nats',
  services: [NATS],
  exactlyOnce: true,
  async open(brokerName) {
    const prefix = `ptest-outbox-outage-${randomBytes(4).toString('hex')}-`;
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 4222 });
    const broker = new NatsBroker(brokerName, { provider: 'nats', uri: `nats://127.0.0.1:${proxy.port}`, stream_prefix: prefix, request_timeout_ms: 2_000 });
    await broker.connect();
    return {
      broker,
      cut: () => proxy.cut(),
      restore: () => proxy.restore(),
      delivered: () => drainStream(broker, OUTAGE_STREAM),
      close: async () => {
        await broker.close();
        await proxy.close();
        const nc = await connect({ servers: '127.0.0.1:4222' });
        const jsm = await jetstreamManager(nc);
        for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
        await jsm.streams.delete(`KV_${prefix}protean_consumers`).catch(() => undefined);
        await nc.close();
      },
    };
  },
};

/** The shared RabbitMQ, in a vhost of the test's own, behind a TCP proxy of the test's own. */
const rabbitmq: OutageBrokerKind = {
  kind: 'rabbitmq',
  services: [RABBITMQ],
  exactlyOnce: false,
  async open(brokerName) {
    const vhost = await createRabbitmqVhost('outbox-outage');
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5672 });
    const broker = new RabbitMQBroker(brokerName, {
      provider: 'rabbitmq',
      uri: `amqp://guest:guest@127.0.0.1:${proxy.port}/${vhost}`,
      connect_timeout_ms: 1_000,
    });
    await broker.connect();
    // The subscriber's queue exists from the start, so it receives every message published.
    await broker.ensureGroup(OUTAGE_STREAM, 'subscriber');
    return {
      broker,
      cut: () => proxy.cut(),
      restore: () => proxy.restore(),
      delivered: async () => {
        const envelopes: MessageEnvelope[] = [];
        for (;;) {
          const batch = await broker.read(OUTAGE_STREAM, 'subscriber', 'checker', { count: 500, blockMs: 0 });
          if (batch.length === 0) return envelopes;
          envelopes.push(...batch.map((m) => m.envelope));
          await broker.ack(
            OUTAGE_STREAM,
            'subscriber',
            batch.map((m) => m.id),
          );
        }
      },
      close: async () => {
        await broker.close();
        await proxy.close();
        await deleteRabbitmqVhost(vhost);
      },
    };
  },
};

export const OUTAGE_BROKERS: readonly OutageBrokerKind[] = [redis, nats, rabbitmq];
