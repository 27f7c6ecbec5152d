import net from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { describeBrokerConformance, REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { BrokerBatchError, BrokerOperationError, BrokerUnavailableError } from '@protean-ts/core';
import { RedisBroker } from '../src/index.js';
import { deleteKeys, REDIS_URI, uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('redis-broker');
afterAll(() => (up ? deleteKeys(prefix) : undefined));

describe.skipIf(!up)('redis broker', () => {
  describeBrokerConformance('redis', () => new RedisBroker('conformance', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix }), {
    capabilities: [
      'PUBLISH',
      'CONSUMER_GROUPS',
      'ACK_NACK',
      'BLOCKING_READ',
      'DEAD_LETTER_QUEUE',
      'RECLAIM_PENDING',
      'DURABLE',
      'DISTRIBUTED',
      'LIVENESS',
      'CONSUMER_LAG',
    ],
    // A foreign producer: an XADD of the body as the entry's envelope field.
    publishRaw: async (broker, stream, body) => {
      const client = new Redis(REDIS_URI);
      try {
        await client.xadd((broker as RedisBroker).key(stream), '*', 'envelope', body);
      } finally {
        client.disconnect();
      }
    },
  });

  describe('on the wire', () => {
    const opened: RedisBroker[] = [];
    const redis = new Redis(REDIS_URI, { lazyConnect: true });
    const open = (settings: Record<string, unknown> = {}) => {
      const broker = new RedisBroker('wire', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix, ...settings });
      opened.push(broker);
      return broker;
    };
    afterEach(async () => {
      vi.restoreAllMocks();
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });
    afterAll(() => redis.disconnect());

    it('publishes a whole batch in one write to Redis (one round trip, not one per message)', async () => {
      const broker = open();
      await broker.connect();
      const stream = 'pipeline-batch';
      const batch = Array.from({ length: 250 }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) }));
      const write = vi.spyOn(net.Socket.prototype, 'write');
      const ids = await broker.publishBatch(batch);
      const writesToRedis = write.mock.contexts.filter((socket) => (socket as net.Socket).remotePort === 6379);
      write.mockRestore();
      expect(ids).toHaveLength(250);
      expect(writesToRedis).toHaveLength(1);
      expect(await redis.xlen(broker.key(stream))).toBe(250);
    });

    it('reports messages Redis refused in a batch per message, and the others as published', async () => {
      const broker = open();
      await redis.set(broker.key('not-a-stream'), 'plain string');
      const batch = ['good', 'not-a-stream', 'good'].map((stream, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) }));
      const error = await broker.publishBatch(batch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerBatchError);
      const { results } = error as BrokerBatchError;
      expect(results.map((r) => r.ok)).toEqual([true, false, true]);
      const refused = results[1] as { ok: false; error: Error };
      expect(refused.error).toBeInstanceOf(BrokerOperationError);
      expect(refused.error.message).toMatch(/publish to stream "not-a-stream": WRONGTYPE/);
      expect(await redis.xlen(broker.key('good'))).toBe(2);
      const single = await broker.publish(batch[1]!).catch((e: unknown) => e);
      expect(single).toBeInstanceOf(BrokerOperationError);
      expect(single).not.toBeInstanceOf(BrokerUnavailableError);
    });

    it('stores the envelope as one JSON field plus type and id for tools like redis-cli', async () => {
      const broker = open();
      const stream = 'entry-shape';
      const envelope = sampleBrokerEnvelope(stream, 3);
      const id = await broker.publish({ stream, envelope });
      const [[entryId, fields]] = (await redis.xrange(broker.key(stream), '-', '+')) as [string, string[]][];
      expect(entryId).toBe(id);
      expect(fields).toEqual(['envelope', JSON.stringify(envelope), 'type', 'Shop.OrderPlaced.v1', 'id', envelope.metadata.headers.id]);
    });

    it('trims a stream to about maxlen entries', async () => {
      const broker = open({ maxlen: 100 });
      const stream = 'trimmed';
      for (let round = 0; round < 5; round += 1) {
        await broker.publishBatch(Array.from({ length: 200 }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
      }
      const length = await redis.xlen(broker.key(stream));
      // `MAXLEN ~` trims whole radix-tree nodes (100 entries by default), so allow one node of slack.
      expect(length).toBeGreaterThanOrEqual(100);
      expect(length).toBeLessThanOrEqual(200);
    });

    it('keeps every entry when maxlen = 0', async () => {
      const broker = open({ maxlen: 0 });
      const stream = 'untrimmed';
      for (let round = 0; round < 3; round += 1) {
        await broker.publishBatch(Array.from({ length: 100 }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
      }
      expect(await redis.xlen(broker.key(stream))).toBe(300);
    });

    it('reports the server version and the length of the streams it used', async () => {
      const broker = open();
      await broker.publish({ stream: 'info', envelope: sampleBrokerEnvelope('info') });
      const info = await broker.info();
      expect(info.connected).toBe(true);
      expect(info.details).toMatchObject({ uri: REDIS_URI, streamPrefix: prefix, maxlen: 100_000, claimIdleMs: 60_000, streams: { info: { length: 1 } } });
      expect(String(info.details.serverVersion)).toMatch(/^\d+\.\d+/);
    });

    it('keeps liveness in one sorted set under the stream prefix, shared by every process, in Redis server time', async () => {
      const worker = open();
      const rescuer = open();
      const stream = 'liveness-shared';
      await worker.reportAlive('host-1-w1', 50);
      const [seconds] = await redis.time();
      const expiresAt = Number(await redis.zscore(`${prefix}protean:alive`, 'host-1-w1'));
      expect(Math.abs(expiresAt - 50 - Number(seconds) * 1000)).toBeLessThan(2_000);
      await worker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
      const [message] = await worker.read(stream, 'g', 'host-1-w1', { count: 1, blockMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [taken] = await rescuer.reclaimFromDeadConsumers(stream, 'g', 'host-2-w1', 10, { minIdleMs: 0 });
      expect(taken).toStrictEqual({ ...message!, deliveryCount: 2 });
    });

    it('reads a dead-letter entry written by the broker back with its failure record intact', async () => {
      const broker = open();
      const stream = 'dlq-shape';
      await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
      const [message] = await broker.read(stream, 'g', 'c', { count: 1, blockMs: 0 });
      await broker.deadLetter(stream, 'g', message!, 'boom');
      const pending = (await redis.xpending(broker.key(stream), 'g')) as [number, ...unknown[]];
      expect(pending[0]).toBe(0);
      const [[, fields]] = (await redis.xrange(`${broker.key(stream)}:dlq`, '-', '+')) as [string, string[]][];
      expect(fields).toEqual(expect.arrayContaining(['original_id', message!.id, 'group', 'g', 'error', 'boom', 'delivery_count', '1']));
    });
  });
});
