import { afterAll, describe, expect, it } from 'vitest';
import { REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { deleteKeys, REDIS_URI, uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('progress');
afterAll(() => (up ? deleteKeys(prefix) : undefined));

describe.skipIf(!up)('redis broker: groupProgress (settled through a marked head)', () => {
  const broker = new RedisBroker('progress', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix });
  afterAll(() => broker.close());
  const publish = (stream: string, n: number) =>
    broker.publishBatch(Array.from({ length: n }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));

  it('reports a missing stream as settled, and a stream without the group as not settled', async () => {
    expect(await broker.groupProgress('none', 'g')).toEqual({ exists: false, head: null, consumers: null, settled: true });
    const [id] = await publish('nogroup', 1);
    expect(await broker.groupProgress('nogroup', 'g')).toEqual({ exists: false, head: id, consumers: 0, settled: false });
  });

  it('is settled through a mark once everything up to it is delivered and acked, whatever came after', async () => {
    const ids = await publish('s', 3);
    await broker.ensureGroup('s', 'g');
    const mark = (await broker.groupProgress('s', 'g')).head!;
    expect(mark).toBe(ids[2]);
    expect(await broker.groupProgress('s', 'g', mark)).toEqual({ exists: true, head: mark, consumers: 0, settled: false });

    const first = await broker.read('s', 'g', 'c1', { count: 3, blockMs: 0 });
    const later = await publish('s', 2);
    // Delivered, not acked yet: not settled.
    expect(await broker.groupProgress('s', 'g', mark)).toMatchObject({ head: later[1], consumers: 1, settled: false });
    await broker.ack(
      's',
      'g',
      first.slice(0, 2).map((m) => m.id),
    );
    expect((await broker.groupProgress('s', 'g', mark)).settled).toBe(false);
    await broker.ack('s', 'g', [first[2]!.id]);
    // Settled through the mark, though the two later entries are undelivered.
    expect((await broker.groupProgress('s', 'g', mark)).settled).toBe(true);
    expect((await broker.groupProgress('s', 'g')).settled).toBe(false);
    // A later entry pending does not hold back the mark.
    await broker.read('s', 'g', 'c2', { count: 1, blockMs: 0 });
    expect(await broker.groupProgress('s', 'g', mark)).toMatchObject({ consumers: 2, settled: true });
  });
});
