/**
 * The NATS adapter says when a stream may lose messages JetStream acknowledged (the outbox marked
 * them published): one WARN per broker for a stream of one replica (JetStream syncs to disk every
 * two minutes by default) unless the operator states the server syncs every write, and for a
 * stream kept in memory; `replicas` above what the server can hold is refused naming the key.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { captureLogsPerTest, NATS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { NatsBroker } from '../src/nats-broker.js';
import { deleteStreams, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('durability');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

describe.skipIf(!up)('nats broker: streams that may lose acknowledged messages', () => {
  const opened: NatsBroker[] = [];
  const logs = captureLogsPerTest();
  const open = (settings: Record<string, unknown> = {}) => {
    const broker = new NatsBroker('events', { provider: 'nats', uri: NATS_URI, stream_prefix: prefix, ...settings });
    opened.push(broker);
    return broker;
  };
  const durabilityWarnings = () => logs.filter((r) => r.level === 'warn' && r.msg.includes('may lose messages JetStream acknowledged'));

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  it('warns once, naming the stream and the fixes, for streams of one replica on a server not said to sync every write', async () => {
    const broker = open();
    await broker.publish({ stream: 'orders', envelope: sampleBrokerEnvelope('orders') });
    await broker.publish({ stream: 'payments', envelope: sampleBrokerEnvelope('payments') });
    await broker.publish({ stream: 'orders', envelope: sampleBrokerEnvelope('orders') });
    const warnings = durabilityWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain(`NATS stream ${broker.namesOf('orders').stream} may lose messages`);
    expect(warnings[0]!.msg).toContain('it has 1 replica');
    expect(warnings[0]!.msg).toContain('`jetstream { sync_interval: always }` and set server_sync_always = true');
    expect(warnings[0]!.msg).toContain('replicas = 3');
    expect(warnings[0]).toMatchObject({ replicas: 1, serverSyncAlways: false });
  });

  it('says nothing when the operator states the server syncs every write', async () => {
    const broker = open({ server_sync_always: true });
    await broker.publish({ stream: 'orders', envelope: sampleBrokerEnvelope('orders') });
    expect(durabilityWarnings()).toEqual([]);
  });

  it('warns for a stream kept in memory, whatever is said of the server', async () => {
    const broker = open({ server_sync_always: true });
    const names = broker.namesOf('in-memory');
    const nc = await connect({ servers: new URL(NATS_URI).host });
    try {
      await (await jetstreamManager(nc)).streams.add({ name: names.stream, subjects: [names.subject], storage: StorageType.Memory });
    } finally {
      await nc.close();
    }
    await broker.publish({ stream: 'in-memory', envelope: sampleBrokerEnvelope('in-memory') });
    expect(durabilityWarnings().map((r) => r.msg)).toEqual([expect.stringContaining('it keeps messages in memory only (storage: memory)')]);
  });

  it('refuses replicas the server cannot hold, naming the key', async () => {
    const broker = open({ replicas: 3 });
    await expect(broker.publish({ stream: 'replicated', envelope: sampleBrokerEnvelope('replicated') })).rejects.toThrow(
      /\[brokers\.events\] replicas.*is 3.*need a JetStream cluster/s,
    );
  });
});
