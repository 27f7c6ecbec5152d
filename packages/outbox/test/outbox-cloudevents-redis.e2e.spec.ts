/**
 * Published events leaving as CloudEvents on Redis Streams: two external brokers, one in
 * structured and one in binary mode, and another system reading each stream with plain ioredis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { expectCloudEventOfRow } from './support/cloud-event-checks.js';
import { BINARY_SOURCE, cloudEventShop, DEFAULT_SOURCE, type CloudEventShop } from './support/cloud-event-shop.js';
import { createTempDatabase, REDIS_URI, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('outbox → Redis external brokers sending CloudEvents', () => {
  let db: TempDatabase;
  let app: CloudEventShop;
  const structured = streamPrefix('ce-structured');
  const binary = streamPrefix('ce-binary');
  const redis = new Redis(REDIS_URI);

  beforeAll(async () => {
    db = await createTempDatabase('outbox_ce_redis');
    app = await cloudEventShop(db, {
      default: { provider: 'redis', uri: REDIS_URI, stream_prefix: streamPrefix('ce-main') },
      structured: { provider: 'redis', uri: REDIS_URI, stream_prefix: structured },
      binary: { provider: 'redis', uri: REDIS_URI, stream_prefix: binary },
    });
  });
  afterAll(async () => {
    await app?.shop.domain.close();
    await db?.drop();
    redis.disconnect();
  });

  const fieldsOf = (entry: [string, string[]]): Record<string, string> => {
    const map: Record<string, string> = {};
    for (let i = 0; i < entry[1].length; i += 2) map[entry[1][i]!] = entry[1][i + 1]!;
    return map;
  };

  it('structured mode: the entry holds the whole CloudEvent as application/cloudevents+json', async () => {
    const rows = await app.publishAnOrder();
    const row = rows.find((r) => r.targetBroker === 'structured')!;
    const entries = (await redis.xrange(`${structured}shop::order`, '-', '+')) as [string, string[]][];
    expect(entries).toHaveLength(1);
    const fields = fieldsOf(entries[0]!);
    expect(Object.keys(fields).sort()).toEqual(['cloudevent', 'content-type']);
    expect(fields['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    const { data, ...attributes } = JSON.parse(fields.cloudevent!) as Record<string, unknown>;
    expect(attributes.datacontenttype).toBe('application/json');
    expectCloudEventOfRow(attributes, data, row, DEFAULT_SOURCE);
  });

  it('binary mode: ce_ fields carry the attributes, data is the JSON body', async () => {
    const entriesBefore = await redis.xlen(`${binary}shop::order`);
    const rows = await app.publishAnOrder();
    const row = rows.find((r) => r.targetBroker === 'binary')!;
    const entries = (await redis.xrange(`${binary}shop::order`, '-', '+')) as [string, string[]][];
    expect(entries).toHaveLength(entriesBefore + 1);
    const fields = fieldsOf(entries.at(-1)!);
    expect(fields['content-type']).toBe('application/json');
    expect(fields).not.toHaveProperty('envelope');
    const attributes = Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (k.startsWith('ce_') ? [[k.slice(3), v]] : [])));
    expectCloudEventOfRow(attributes, JSON.parse(fields.data!), row, BINARY_SOURCE);
  });
});
