/**
 * What the shared conformance suite checks only with RECLAIM_PENDING, checked here the JetStream
 * way: JetStream redelivers unacked messages itself (after a nak at once, after `ack_wait` for a
 * worker that stopped), in `read`; acks are confirmed; dead letters move, list, replay and purge;
 * a republished message id is dropped by the server.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { NATS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { NatsBroker } from '../src/index.js';
import { deleteStreams, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('delivery');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

const NOW = { count: 100, blockMs: 0 };
let counter = 0;
const streamName = () => `delivery-${(counter += 1)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!up)('nats broker: redelivery, acks and dead letters', () => {
  const opened: NatsBroker[] = [];
  const open = (settings: Record<string, unknown> = {}) => {
    const broker = new NatsBroker('delivery', { provider: 'nats', uri: NATS_URI, stream_prefix: prefix, ...settings });
    opened.push(broker);
    return broker;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  async function delivered(broker: NatsBroker, stream: string, n: number, consumer = 'c1') {
    await broker.ensureGroup(stream, 'g');
    await broker.publishBatch(Array.from({ length: n }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
    const messages = await broker.read(stream, 'g', consumer, NOW);
    expect(messages).toHaveLength(n);
    return messages;
  }

  it('counts only real acks, and an acked message never comes back', async () => {
    const broker = open({ ack_wait_ms: 1_000 });
    const stream = streamName();
    const [first, second] = await delivered(broker, stream, 2);
    expect(await broker.ack(stream, 'g', [first!.id])).toBe(1);
    expect(await broker.ack(stream, 'g', [first!.id, '999'])).toBe(0);
    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 1, lag: 0, exists: true });
    expect(await broker.ack(stream, 'g', [second!.id])).toBe(1);
    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true });
    await sleep(1_500);
    expect(await broker.read(stream, 'g', 'c1', NOW)).toEqual([]);
  });

  it('redelivers a nacked message on the next read at once, counting the delivery; a nack of what is not held is a no-op', async () => {
    const broker = open();
    const stream = streamName();
    const [message] = await delivered(broker, stream, 1);
    await broker.nack(stream, 'g', message!.id);
    await broker.nack(stream, 'g', message!.id);
    await broker.nack(stream, 'other', '1');
    const [again, ...rest] = await broker.read(stream, 'g', 'c2', { count: 10, blockMs: 2_000 });
    expect(rest).toEqual([]);
    expect(again).toStrictEqual({ ...message!, deliveryCount: 2 });
  });

  it('gives what a closing worker read and did not ack back to the group at once, to another worker', async () => {
    const stream = streamName();
    // A long ack_wait: the message can only come back this soon because close() gave it back.
    const closing = open({ ack_wait_ms: 60_000 });
    const [message] = await delivered(closing, stream, 1);
    await closing.close();
    const rescuer = open({ ack_wait_ms: 60_000 });
    const [again] = await rescuer.read(stream, 'g', 'c2', { count: 10, blockMs: 3_000 });
    expect(again).toStrictEqual({ ...message!, deliveryCount: 2 });
    expect(await rescuer.ack(stream, 'g', [again!.id])).toBe(1);
  });

  it('gives back at once what a stopping subscription loop still holds (a lost ack), though the worker goes on acking', async () => {
    const stream = streamName();
    // Long enough that only the release can bring the message back within the test.
    const holder = open({ ack_wait_ms: 60_000, claim_idle_ms: 60_000 });
    const [lost, acked] = await delivered(holder, stream, 2);
    // The holder makes progress (an ack) and keeps the other delivery, as after an ack that failed.
    expect(await holder.ack(stream, 'g', [acked!.id])).toBe(1);
    await holder.releaseGroup(stream, 'g');
    await holder.releaseGroup(stream, 'g');
    const newOwner = open({ ack_wait_ms: 60_000 });
    const [again, ...rest] = await newOwner.read(stream, 'g', 'c2', { count: 10, blockMs: 3_000 });
    expect(rest).toEqual([]);
    expect(again).toStrictEqual({ ...lost!, deliveryCount: 2 });
    expect(await holder.ack(stream, 'g', [lost!.id])).toBe(0);
    expect(await newOwner.ack(stream, 'g', [again!.id])).toBe(1);
  });

  it('keeps what a live worker holds past ack_wait (progress notes), up to claim_idle_ms', async () => {
    const stream = streamName();
    const holder = open({ ack_wait_ms: 1_000, claim_idle_ms: 3_000 });
    const other = open({ ack_wait_ms: 1_000, claim_idle_ms: 3_000 });
    const [message] = await delivered(holder, stream, 1);
    // Twice ack_wait: without the progress notes JetStream would have redelivered it.
    expect(await other.read(stream, 'g', 'c2', { count: 10, blockMs: 2_000 })).toEqual([]);
    // Past claim_idle_ms the holder lets go (a hung handler): JetStream redelivers it.
    const [again] = await other.read(stream, 'g', 'c2', { count: 10, blockMs: 4_000 });
    expect(again!.id).toBe(message!.id);
    expect(again!.deliveryCount).toBe(2);
  });

  it('drops a republished message id on the server: the same id, one message', async () => {
    const broker = open();
    const stream = streamName();
    const envelope = sampleBrokerEnvelope(stream, 1);
    const first = await broker.publish({ stream, envelope });
    const again = await broker.publish({ stream, envelope });
    expect(again).toBe(first);
    expect(await broker.read(stream, 'g', 'c', NOW)).toHaveLength(1);
  });

  it('moves a message to the dead-letter stream with why, where and how often, and acks it', async () => {
    const broker = open({ ack_wait_ms: 1_000 });
    const stream = streamName();
    const [message] = await delivered(broker, stream, 1);
    await broker.nack(stream, 'g', message!.id);
    const [retried] = await broker.read(stream, 'g', 'c1', { count: 1, blockMs: 2_000 });
    const before = Date.now();
    await broker.deadLetter(stream, 'g', retried!, 'TypeError: boom\n  at line 1');
    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true });
    const [letter, ...rest] = await broker.listDeadLetters(stream);
    expect(rest).toEqual([]);
    expect(letter).toMatchObject({ originalId: message!.id, stream, group: 'g', error: 'TypeError: boom\n  at line 1', deliveryCount: 2 });
    expect(letter!.envelope).toStrictEqual(message!.envelope);
    expect(Date.parse(letter!.failedAt)).toBeGreaterThanOrEqual(before - 1000);
    await sleep(1_500);
    expect(await broker.read(stream, 'g', 'c1', NOW)).toEqual([]);
  });

  it('lists at most count letters oldest first, replays chosen ones (or all) in order, and purges', async () => {
    const broker = open();
    const stream = streamName();
    const messages = await delivered(broker, stream, 4);
    for (const m of messages) await broker.deadLetter(stream, 'g', m, 'x');
    const letters = await broker.listDeadLetters(stream);
    expect((await broker.listDeadLetters(stream, { count: 2 })).map((l) => l.originalId)).toEqual(messages.slice(0, 2).map((m) => m.id));
    expect(await broker.replayDeadLetters(stream, [letters[1]!.id, '999999'])).toBe(1);
    expect((await broker.listDeadLetters(stream)).map((l) => l.id)).toEqual([letters[0]!.id, letters[2]!.id, letters[3]!.id]);
    const replayed = await broker.read(stream, 'g', 'c1', NOW);
    expect(replayed.map((m) => [m.envelope, m.deliveryCount])).toStrictEqual([[messages[1]!.envelope, 1]]);
    expect(await broker.replayDeadLetters(stream, [letters[2]!.id])).toBe(1);
    expect(await broker.purgeDeadLetters(stream)).toBe(2);
    expect(await broker.listDeadLetters(stream)).toEqual([]);
    expect(await broker.purgeDeadLetters(stream)).toBe(0);
    expect(await broker.replayDeadLetters(stream)).toBe(0);
    expect((await broker.read(stream, 'g', 'c1', NOW)).map((m) => m.envelope)).toStrictEqual([messages[2]!.envelope]);
  });

  it('dead-letters on arrival a message delivered max_deliver times, and one that is not an envelope', async () => {
    const broker = open({ max_deliver: 2 });
    const stream = streamName();
    const [message] = await delivered(broker, stream, 1);
    await broker.nack(stream, 'g', message!.id);
    const [second] = await broker.read(stream, 'g', 'c1', { count: 1, blockMs: 2_000 });
    expect(second!.deliveryCount).toBe(2);
    await broker.nack(stream, 'g', second!.id);
    expect(await broker.read(stream, 'g', 'c1', { count: 1, blockMs: 500 })).toEqual([]);

    // A foreign producer writes garbage on the stream's subject.
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await jetstream(nc).publish(broker.namesOf(stream).subject, 'not json');
    await nc.close();
    expect(await broker.read(stream, 'g', 'c1', { count: 1, blockMs: 500 })).toEqual([]);

    const letters = await broker.listDeadLetters(stream);
    expect(letters.map((l) => [l.originalId, l.deliveryCount, l.envelope === null])).toEqual([
      [message!.id, 3, false],
      [expect.any(String), 1, true],
    ]);
    expect(letters[0]!.error).toMatch(/max_deliver = 2/);
    expect(letters[1]!.rawFields).toEqual(['data', 'not json']);
    expect(await broker.replayDeadLetters(stream)).toBe(1);
    expect((await broker.listDeadLetters(stream)).map((l) => l.envelope)).toEqual([null]);
  });
});
