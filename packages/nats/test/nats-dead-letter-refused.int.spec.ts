/**
 * A message bound for the dead-letter stream whose letter JetStream refuses (here a DLQ stream
 * with a tiny max_msg_size) is neither a failed read nor a loop: it is redelivered after ack_wait
 * a bounded number of times, then terminated once with one ERROR naming it; nothing stays pending.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { captureLogsPerTest, NATS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { NatsBroker } from '../src/index.js';
import { deleteStreams, eventually, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('dlq-refused');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

describe.skipIf(!up)('nats broker: a dead letter JetStream refuses', () => {
  const opened: NatsBroker[] = [];
  const logs = captureLogsPerTest();
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  it('terminates an undecodable message at its last delivery with one ERROR naming it; reads never fail and nothing stays pending', async () => {
    const broker = new NatsBroker('refused', { provider: 'nats', uri: NATS_URI, stream_prefix: prefix, ack_wait_ms: 1_000, max_deliver: 2 });
    opened.push(broker);
    const stream = 'refused';
    await broker.ensureGroup(stream, 'g');
    const names = broker.namesOf(stream);
    const nc = await connect({ servers: new URL(NATS_URI).host });
    try {
      // The DLQ stream exists already, and takes no letter: every letter is larger than 16 bytes.
      await (await jetstreamManager(nc)).streams.add({ name: names.dlqStream, subjects: [names.dlqSubject], max_msg_size: 16 });
      await jetstream(nc).publish(names.subject, 'not json');
    } finally {
      await nc.close();
    }
    const valid = sampleBrokerEnvelope(stream);
    await broker.publish({ stream, envelope: valid });

    const [message] = await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 });
    expect(message!.envelope).toStrictEqual(valid);
    await broker.ack(stream, 'g', [message!.id]);
    const dropped = () => logs.filter((r) => r.level === 'error' && r.msg.startsWith('message dropped'));
    await eventually('the undecodable message is dropped', async () => {
      expect(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 200 })).toEqual([]);
      return dropped().length > 0;
    });

    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true });
    // Three deliveries (max_deliver + 1, the one the adapter dead-letters on): two retried, the last dropped.
    const retried = logs.filter((r) => r.level === 'error' && r.msg.startsWith('could not dead-letter'));
    expect(retried.map((r) => [r.id, r.deliveryCount])).toEqual([
      ['1', 1],
      ['1', 2],
    ]);
    expect(dropped().map((r) => [r.id, r.deliveryCount, r.reason])).toEqual([['1', 3, 'the payload is not JSON']]);
    expect(String(dropped()[0]!.hint)).toContain('sequence 1');
    // Terminated: it never comes back, whatever the wait.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).toEqual([]);
    expect(dropped()).toHaveLength(1);
    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true });
  });
});
