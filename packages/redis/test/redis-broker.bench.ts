/**
 * Throughput of the Redis broker against the local Redis: `cd packages/redis && npx vitest bench`.
 * Compares one pipelined publishBatch with the same messages published one by one, and
 * measures a read-and-ack cycle, so a change that loses the pipeline shows up here.
 */
import { afterAll, bench, describe } from 'vitest';
import { REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { deleteKeys, REDIS_URI, uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('bench');
const broker = new RedisBroker('bench', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix, maxlen: 10_000 });
const batch = Array.from({ length: 500 }, (_, i) => ({ stream: 'orders', envelope: sampleBrokerEnvelope('orders', i) }));

afterAll(async () => {
  await broker.close();
  if (up) await deleteKeys(prefix);
});

describe.skipIf(!up)('publish 500 messages', () => {
  bench('publishBatch (one pipeline)', async () => {
    await broker.publishBatch(batch);
  });
  bench('publish one by one', async () => {
    for (const message of batch) await broker.publish(message);
  });
});

describe.skipIf(!up)('consume', () => {
  bench('read 100 + ack 100', async () => {
    await broker.publishBatch(batch.slice(0, 100));
    const messages = await broker.read('orders', 'bench', 'c', { count: 100, blockMs: 0 });
    await broker.ack(
      'orders',
      'bench',
      messages.map((m) => m.id),
    );
  });
});
