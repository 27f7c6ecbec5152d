import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { captureLogsPerTest, REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { UNDECODABLE_DEAD_LETTER_DELIVERIES } from '../src/redis-undecodable-entries.js';
import { deleteKeys, REDIS_URI, uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('undecodable');
afterAll(() => (up ? deleteKeys(prefix) : undefined));

describe.skipIf(!up)('redis broker: stream entries without a valid envelope', () => {
  const redis = new Redis(REDIS_URI, { lazyConnect: true });
  const opened: RedisBroker[] = [];
  const logs = captureLogsPerTest();
  const open = () => {
    const broker = new RedisBroker('undecodable', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix });
    opened.push(broker);
    return broker;
  };
  const pendingIds = async (broker: RedisBroker, stream: string, group: string) =>
    ((await redis.xpending(broker.key(stream), group, '-', '+', 100)) as [string, ...unknown[]][]).map(([id]) => id);

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });
  afterAll(() => redis.disconnect());

  /** A valid message, an entry with no envelope, one whose envelope is not JSON, another valid one. */
  async function mixedStream(broker: RedisBroker, stream: string) {
    const first = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 1) });
    const foreign = (await redis.xadd(broker.key(stream), '*', 'payment', 'p-0', 'amount', '12'))!;
    const corrupt = (await redis.xadd(broker.key(stream), '*', 'envelope', '{"data":', 'type', 'X.v1'))!;
    const last = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 2) });
    return { first, foreign, corrupt, last };
  }

  it('regression: a read no longer fails for the whole batch; the valid messages come back and the bad entries are dead-lettered and acked', async () => {
    const broker = open();
    const stream = 'read-mixed';
    await broker.ensureGroup(stream, 'g');
    const ids = await mixedStream(broker, stream);

    const messages = await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 });

    expect(messages.map((m) => m.id)).toEqual([ids.first, ids.last]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([ids.first, ids.last]);
    const letters = await broker.listDeadLetters(stream);
    expect(letters.map((l) => [l.originalId, l.group, l.envelope, l.rawFields])).toEqual([
      [ids.foreign, 'g', null, ['payment', 'p-0', 'amount', '12']],
      [ids.corrupt, 'g', null, ['envelope', '{"data":', 'type', 'X.v1']],
    ]);
    expect(letters[0]!.error).toMatch(
      new RegExp(`Stream entry ${ids.foreign} of stream "${stream}" \\(group "g"\\) cannot be decoded: it has no "envelope" field`),
    );
    expect(letters[1]!.error).toMatch(/cannot be decoded: its "envelope" field is not JSON/);
    await broker.ack(
      stream,
      'g',
      messages.map((m) => m.id),
    );
    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    const warnings = logs.filter((r) => r.level === 'warn' && r.msg === 'undecodable stream entry moved to the dead-letter stream');
    expect(warnings.map((r) => [r.stream, r.group, r.entryId])).toEqual([
      [stream, 'g', ids.foreign],
      [stream, 'g', ids.corrupt],
    ]);
  });

  it('regression: a reclaim no longer fails for the whole batch when a pending entry cannot be decoded', async () => {
    const broker = open();
    const stream = 'reclaim-mixed';
    await broker.ensureGroup(stream, 'g');
    const ids = await mixedStream(broker, stream);
    // A consumer outside protean-ts took all four and died: they are pending for it.
    await redis.xreadgroup('GROUP', 'g', 'gone', 'COUNT', 10, 'STREAMS', broker.key(stream), '>');

    const reclaimed = await broker.reclaim(stream, 'g', 'c2', 0, 10);

    expect(reclaimed.map((m) => [m.id, m.deliveryCount])).toEqual([
      [ids.first, 2],
      [ids.last, 2],
    ]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([ids.first, ids.last]);
    const letters = await broker.listDeadLetters(stream);
    expect(letters.map((l) => [l.originalId, l.envelope, l.deliveryCount])).toEqual([
      [ids.foreign, null, 2],
      [ids.corrupt, null, 2],
    ]);
  });

  it('dead-letters undecodable entries taken over from a dead consumer, returning the valid ones', async () => {
    const broker = open();
    const stream = 'dead-consumer-mixed';
    await broker.ensureGroup(stream, 'g');
    const ids = await mixedStream(broker, stream);
    // A worker reported alive, read all four outside protean-ts's decoding, and was killed.
    await broker.reportAlive(`${prefix}killed`, 1);
    await redis.xreadgroup('GROUP', 'g', `${prefix}killed`, 'COUNT', 10, 'STREAMS', broker.key(stream), '>');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const taken = await broker.reclaimFromDeadConsumers(stream, 'g', 'c2', 10, { minIdleMs: 0 });

    expect(taken.map((m) => [m.id, m.deliveryCount])).toEqual([
      [ids.first, 2],
      [ids.last, 2],
    ]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([ids.first, ids.last]);
    expect((await broker.listDeadLetters(stream)).map((l) => [l.originalId, l.deliveryCount])).toEqual([
      [ids.foreign, 2],
      [ids.corrupt, 2],
    ]);
  });

  it('rejects envelopes that are JSON but lack what every broker call needs (data, metadata.headers.id and type)', async () => {
    const broker = open();
    const stream = 'not-an-envelope';
    await broker.ensureGroup(stream, 'g');
    const headless = JSON.stringify({ data: {}, metadata: { headers: { id: 'm-1' } } });
    await redis.xadd(broker.key(stream), '*', 'envelope', '42');
    await redis.xadd(broker.key(stream), '*', 'envelope', headless);
    const valid = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });

    expect((await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).map((m) => m.id)).toEqual([valid]);
    const errors = (await broker.listDeadLetters(stream)).map((l) => l.error);
    expect(errors[0]).toMatch(/its "envelope" field is not a \{ data, metadata \} object/);
    expect(errors[1]).toMatch(/its envelope has no metadata\.headers\.type/);
  });

  it('leaves an undecodable entry pending when its dead letter cannot be written, and dead-letters it on a later reclaim', async () => {
    const broker = open();
    const stream = 'dlq-blocked';
    await broker.ensureGroup(stream, 'g');
    const foreign = (await redis.xadd(broker.key(stream), '*', 'payment', 'p-0'))!;
    const valid = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
    // A key of the wrong type where the dead-letter stream goes: the XADD fails, so no ack.
    await redis.set(`${broker.key(stream)}:dlq`, 'not a stream');

    expect((await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).map((m) => m.id)).toEqual([valid]);
    await broker.ack(stream, 'g', [valid]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([foreign]);
    expect(logs.some((r) => r.level === 'error' && r.entryId === foreign && JSON.stringify(r.error).includes('WRONGTYPE'))).toBe(true);

    await redis.del(`${broker.key(stream)}:dlq`);
    expect(await broker.reclaim(stream, 'g', 'c2', 0, 10)).toEqual([]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    expect((await broker.listDeadLetters(stream)).map((l) => l.originalId)).toEqual([foreign]);
  });

  /** Envelope JSON text nesting `levels` arrays deep inside its data: JSON.parse reads it, JSON.stringify cannot write it. */
  const deepEnvelopeText = (stream: string, levels: number) => {
    const { metadata } = sampleBrokerEnvelope(stream);
    return `{"data":{"deep":${'['.repeat(levels)}${']'.repeat(levels)}},"metadata":${JSON.stringify(metadata)}}`;
  };

  it('regression: an entry whose envelope nests deeper than any message is dead-lettered at read with its raw fields, never handed to a handler', async () => {
    const broker = open();
    const stream = 'deep';
    await broker.ensureGroup(stream, 'g');
    const text = deepEnvelopeText(stream, 100_000);
    const deep = (await redis.xadd(broker.key(stream), '*', 'envelope', text, 'type', 'Shop.OrderPlaced.v1'))!;
    const valid = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });

    expect((await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).map((m) => m.id)).toEqual([valid]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([valid]);
    const [letter] = await broker.listDeadLetters(stream);
    expect(letter).toMatchObject({ originalId: deep, envelope: null });
    expect(letter!.error).toMatch(/its envelope nests deeper than 200 levels/);
    expect(letter!.rawFields).toEqual(['envelope', text, 'type', 'Shop.OrderPlaced.v1']);
  });

  it('regression: an envelope with a blank id or type is undecodable (deadLetter and ack would refuse it, leaving it pending forever)', async () => {
    const broker = open();
    const stream = 'blank-id';
    await broker.ensureGroup(stream, 'g');
    const blank = sampleBrokerEnvelope(stream);
    blank.metadata.headers.id = '   ';
    const entry = (await redis.xadd(broker.key(stream), '*', 'envelope', JSON.stringify(blank)))!;

    expect(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).toEqual([]);
    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    expect((await broker.listDeadLetters(stream)).map((l) => [l.originalId, l.error.includes('no metadata.headers.id')])).toEqual([[entry, true]]);
  });

  it('regression: a dead letter copies the entry from the stream, so an envelope JSON.stringify cannot write still goes to the DLQ, verbatim', async () => {
    const broker = open();
    const stream = 'copy-verbatim';
    await broker.ensureGroup(stream, 'g');
    // Read around protean-ts's decoding (which refuses this depth) to hand deadLetter what it cannot encode.
    const text = deepEnvelopeText(stream, 20_000);
    const id = (await redis.xadd(broker.key(stream), '*', 'envelope', text, 'type', 'Shop.OrderPlaced.v1', 'id', 'm-deep', 'extra', 'dropped'))!;
    await redis.xreadgroup('GROUP', 'g', 'c1', 'COUNT', 10, 'STREAMS', broker.key(stream), '>');
    const message = { id, stream, envelope: JSON.parse(text) as ReturnType<typeof sampleBrokerEnvelope>, deliveryCount: 1 };

    await broker.deadLetter(stream, 'g', message, 'handler failed');

    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    const [[, fields]] = (await redis.xrange(`${broker.key(stream)}:dlq`, '-', '+')) as [string, string[]][];
    expect(fields.slice(0, 6)).toEqual(['envelope', text, 'type', 'Shop.OrderPlaced.v1', 'id', 'm-deep']);
    expect(fields).not.toContain('extra');
    expect((await broker.listDeadLetters(stream))[0]).toMatchObject({ originalId: id, error: 'handler failed', deliveryCount: 1 });
  });

  it('regression: dead letters keep the bytes of the entry (invalid UTF-8 included), for messages and undecodable entries alike', async () => {
    const broker = open();
    const stream = 'bytes';
    await broker.ensureGroup(stream, 'g');
    const envelope = sampleBrokerEnvelope(stream);
    const [head, tail] = JSON.stringify(envelope).split('naïve');
    const bytes = Buffer.concat([Buffer.from(head!), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(tail!)]);
    const message = (await redis.xadd(broker.key(stream), '*', 'envelope', bytes))!;
    const garbage = Buffer.from([0x00, 0xff, 0x80, 0x7b]);
    const undecodable = (await redis.xadd(broker.key(stream), '*', 'envelope', garbage))!;

    const [received] = await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 });
    expect(received!.id).toBe(message);
    await broker.deadLetter(stream, 'g', received!, 'handler failed');

    const letters = (await redis.xrangeBuffer(Buffer.from(`${broker.key(stream)}:dlq`), '-', '+')) as [Buffer, Buffer[]][];
    const fieldOf = (fields: Buffer[], name: string) => fields[fields.findIndex((f, i) => i % 2 === 0 && f.toString() === name) + 1]!;
    const byId = new Map(letters.map(([, fields]) => [fieldOf(fields, 'original_id').toString(), fields]));
    expect(fieldOf(byId.get(message)!, 'envelope').equals(bytes)).toBe(true);
    // raw_fields is the JSON array of the fields; the garbage bytes stand in it as they were.
    expect(fieldOf(byId.get(undecodable)!, 'raw_fields').includes(Buffer.from([0xff, 0x80, 0x7b]))).toBe(true);
  });

  it('dead-letters a message whose entry is gone from the stream with the envelope the consumer holds', async () => {
    const broker = open();
    const stream = 'gone';
    await broker.ensureGroup(stream, 'g');
    await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
    const [message] = await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 });
    await redis.xdel(broker.key(stream), message!.id);

    await broker.deadLetter(stream, 'g', message!, 'handler failed');

    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    expect((await broker.listDeadLetters(stream))[0]!.envelope).toEqual(message!.envelope);
  });

  it(`regression: an undecodable entry whose dead letter can never be written is acked with an ERROR at its ${UNDECODABLE_DEAD_LETTER_DELIVERIES}th delivery, not reclaimed forever`, async () => {
    const broker = open();
    const stream = 'dlq-never';
    await broker.ensureGroup(stream, 'g');
    const foreign = (await redis.xadd(broker.key(stream), '*', 'payment', 'p-0'))!;
    await redis.set(`${broker.key(stream)}:dlq`, 'not a stream');

    expect(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })).toEqual([]);
    for (let delivery = 2; delivery < UNDECODABLE_DEAD_LETTER_DELIVERIES; delivery++) {
      expect(await broker.reclaim(stream, 'g', 'c2', 0, 10)).toEqual([]);
      expect(await pendingIds(broker, stream, 'g')).toEqual([foreign]);
    }
    expect(await broker.reclaim(stream, 'g', 'c2', 0, 10)).toEqual([]);

    expect(await pendingIds(broker, stream, 'g')).toEqual([]);
    const dropped = logs.filter((r) => r.level === 'error' && r.msg.startsWith('undecodable stream entry dropped'));
    expect(dropped.map((r) => [r.entryId, r.deliveries])).toEqual([[foreign, UNDECODABLE_DEAD_LETTER_DELIVERIES]]);
    expect(String(dropped[0]!.hint)).toContain(foreign);
    expect(JSON.stringify(dropped[0]!.deadLetterError)).toContain('WRONGTYPE');
    // Still in the stream for an operator to read.
    expect(await redis.xrange(broker.key(stream), foreign, foreign)).toHaveLength(1);
  });

  it('keeps the dead letter of an undecodable entry on replay (publishing it again cannot help) and replays the others', async () => {
    const broker = open();
    const stream = 'replay-mixed';
    await broker.ensureGroup(stream, 'g');
    const { foreign, corrupt } = await mixedStream(broker, stream);
    const [message] = await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 });
    await broker.deadLetter(stream, 'g', message!, 'handler failed');

    expect(await broker.replayDeadLetters(stream)).toBe(1);
    expect((await broker.listDeadLetters(stream)).map((l) => l.originalId)).toEqual([foreign, corrupt]);
  });
});
