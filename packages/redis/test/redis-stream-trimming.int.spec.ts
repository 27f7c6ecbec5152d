import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { captureLogsPerTest, REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { deleteKeys, REDIS_URI, uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('trimming');
afterAll(() => (up ? deleteKeys(prefix) : undefined));

const MAXLEN = 100;
const batch = (stream: string, n = 100) => Array.from({ length: n }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) }));

describe.skipIf(!up)('redis broker: trimming never drops what a group has not consumed', () => {
  const redis = new Redis(REDIS_URI, { lazyConnect: true });
  const opened: RedisBroker[] = [];
  const logs = captureLogsPerTest();
  const open = (settings: Record<string, unknown> = {}) => {
    const broker = new RedisBroker('trim', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix, maxlen: MAXLEN, ...settings });
    opened.push(broker);
    return broker;
  };
  /** Reads and acks everything `group` has not seen yet. */
  const consumeAll = async (broker: RedisBroker, stream: string, group: string) => {
    for (;;) {
      const messages = await broker.read(stream, group, 'c', { count: 1000, blockMs: 0 });
      if (messages.length === 0) return;
      await broker.ack(
        stream,
        group,
        messages.map((m) => m.id),
      );
    }
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });
  afterAll(() => redis.disconnect());

  it('regression: a stopped group (created, never reading) keeps every entry through a burst far past maxlen', async () => {
    const broker = open();
    const stream = 'stopped-group';
    await broker.ensureGroup(stream, 'stopped');
    await broker.ensureGroup(stream, 'live');
    for (let round = 0; round < 30; round += 1) {
      await broker.publishBatch(batch(stream));
      await consumeAll(broker, stream, 'live');
    }
    await broker.trimStream(stream);
    expect(await redis.xlen(broker.key(stream))).toBe(3_000);
    // Everything is still there for the stopped group once it comes back.
    let delivered = 0;
    for (let messages; (messages = await broker.read(stream, 'stopped', 'c', { count: 1000, blockMs: 0 })).length > 0;) delivered += messages.length;
    expect(delivered).toBe(3_000);
  });

  it('keeps what a group read but has not acked (pending), and trims it once acked', async () => {
    const broker = open();
    const stream = 'pending-kept';
    const first = await broker.publishBatch(batch(stream, 50));
    const held = await broker.read(stream, 'g', 'slow', { count: 1, blockMs: 0 });
    expect(held.map((m) => m.id)).toEqual([first[0]]);
    await consumeAll(broker, stream, 'g');
    for (let round = 0; round < 10; round += 1) {
      await broker.publishBatch(batch(stream));
      await consumeAll(broker, stream, 'g');
    }
    await broker.trimStream(stream);
    const [[oldest]] = (await redis.xrange(broker.key(stream), '-', '+', 'COUNT', 1)) as [string, string[]][];
    expect(oldest).toBe(first[0]);
    expect(await redis.xlen(broker.key(stream))).toBe(1_050);

    await broker.ack(stream, 'g', [held[0]!.id]);
    await broker.trimStream(stream);
    const length = await redis.xlen(broker.key(stream));
    expect(length).toBeGreaterThanOrEqual(MAXLEN);
    expect(length).toBeLessThanOrEqual(2 * MAXLEN);
  });

  it('trims back to about maxlen when every group acked everything, as publishing goes on', async () => {
    const broker = open();
    const stream = 'all-acked';
    await broker.ensureGroup(stream, 'a');
    await broker.ensureGroup(stream, 'b');
    for (let round = 0; round < 30; round += 1) {
      await broker.publishBatch(batch(stream));
      await consumeAll(broker, stream, 'a');
      await consumeAll(broker, stream, 'b');
    }
    // No explicit trim: publishing trims on its own (here after every batch, a tenth of maxlen).
    const length = await redis.xlen(broker.key(stream));
    expect(length).toBeGreaterThanOrEqual(MAXLEN);
    // The last batch of 100 came after the last trim, plus one radix-tree node of slack.
    expect(length).toBeLessThanOrEqual(3 * MAXLEN);
    expect(logs.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('keeps about maxlen entries of a stream that has no group yet, for the first group to come', async () => {
    const broker = open();
    const stream = 'no-group';
    for (let round = 0; round < 10; round += 1) await broker.publishBatch(batch(stream));
    await broker.trimStream(stream);
    const length = await redis.xlen(broker.key(stream));
    expect(length).toBeGreaterThanOrEqual(MAXLEN);
    expect(length).toBeLessThanOrEqual(2 * MAXLEN);
  });

  it('past maxlen_hard trims unconsumed entries too, logs an ERROR per group with how many it lost, and reports them', async () => {
    const broker = open({ maxlen_hard: 500 });
    const stream = 'hard-limit';
    await broker.ensureGroup(stream, 'stopped');
    await broker.ensureGroup(stream, 'holder');
    await broker.ensureGroup(stream, 'live');
    for (let round = 0; round < 10; round += 1) {
      await broker.publishBatch(batch(stream));
      // `holder` reads everything and acks nothing: its entries are pending when they go.
      await broker.read(stream, 'holder', 'h', { count: 1000, blockMs: 0 });
      await consumeAll(broker, stream, 'live');
    }
    await broker.trimStream(stream);
    expect(await redis.xlen(broker.key(stream))).toBe(500);

    const errors = logs.filter((r) => r.level === 'error' && r.logger === 'broker.redis');
    const lostBy = (group: string) => errors.filter((r) => r.group === group).reduce((sum, r) => sum + Number(r.lostEntries), 0);
    expect(errors.every((r) => r.stream === stream && r.maxlenHard === 500)).toBe(true);
    expect(lostBy('stopped')).toBe(500);
    expect(lostBy('holder')).toBe(500);
    expect(lostBy('live')).toBe(0);

    expect(await broker.groupStatus(stream, 'stopped')).toEqual({ pending: 0, lag: 500, exists: true, lostToTrimming: 500 });
    expect(await broker.groupStatus(stream, 'holder')).toMatchObject({ lag: 0, exists: true, lostToTrimming: 500 });
    expect(await broker.groupStatus(stream, 'live')).toEqual({ pending: 0, lag: 0, exists: true });
    const info = await broker.info();
    expect((info.details.streams as Record<string, unknown>)[stream]).toEqual({ length: 500, lostToTrimming: { stopped: 500, holder: 500 } });
    expect(info.details.maxlenHard).toBe(500);
    // What is left is intact and in order for the stopped group.
    const rest = await broker.read(stream, 'stopped', 'c', { count: 1000, blockMs: 0 });
    expect(rest).toHaveLength(500);
  });

  it('never trims the dead-letter stream', async () => {
    const broker = open({ maxlen: 10, maxlen_hard: 50 });
    const stream = 'dlq-untrimmed';
    await broker.ensureGroup(stream, 'g');
    for (let round = 0; round < 5; round += 1) {
      await broker.publishBatch(batch(stream, 20));
      for (const message of await broker.read(stream, 'g', 'c', { count: 100, blockMs: 0 })) {
        await broker.deadLetter(stream, 'g', message, 'boom');
      }
    }
    await broker.trimStream(stream);
    expect(await redis.xlen(`${broker.key(stream)}:dlq`)).toBe(100);
    expect(await redis.xlen(broker.key(stream))).toBeLessThanOrEqual(50);
    // Replaying puts them back without trimming the stream (nobody read them yet).
    expect(await broker.replayDeadLetters(stream)).toBe(100);
    expect(await redis.xlen(broker.key(stream))).toBeGreaterThanOrEqual(100);
  });
});
