/**
 * Published events leaving as CloudEvents on Redis Streams: two external brokers, one in
 * structured and one in binary mode, and another system reading each stream with plain ioredis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { DatabaseProvider, OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { createOutboxProcessors } from '../src/index.js';
import { expectCloudEventOfRow } from './support/cloud-event-checks.js';
import { makeOrderDomain } from './support/order-domain.js';
import { createTempDatabase, REDIS_URI, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('outbox → Redis external brokers sending CloudEvents', () => {
  let db: TempDatabase;
  let shop: ReturnType<typeof makeOrderDomain>;
  let provider: DatabaseProvider;
  const structured = streamPrefix('ce-structured');
  const binary = streamPrefix('ce-binary');
  const redis = new Redis(REDIS_URI);

  beforeAll(async () => {
    db = await createTempDatabase('outbox_ce_redis');
    shop = makeOrderDomain();
    await shop.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri } },
        brokers: {
          default: { provider: 'redis', uri: REDIS_URI, stream_prefix: streamPrefix('ce-main') },
          partners: { provider: 'redis', uri: REDIS_URI, stream_prefix: structured, message_format: 'cloudevents' },
          billing: {
            provider: 'redis',
            uri: REDIS_URI,
            stream_prefix: binary,
            message_format: 'cloudevents',
            cloudevents_mode: 'binary',
            cloudevents_source: 'https://shop.example.com/orders',
          },
        },
        enable_outbox: true,
        outbox: { external_brokers: ['partners', 'billing'] },
      },
    });
    provider = shop.domain.providers.get('default')!;
    await provider.setupSchema([shop.domain.aggregateSchemaFor(shop.Order)], { outbox: true });
  });
  afterAll(async () => {
    await shop?.domain.close();
    await db?.drop();
    redis.disconnect();
  });

  async function publishAnOrder(): Promise<OutboxRow[]> {
    const order = shop.Order.create({ customer: 'Ann' });
    await shop.domain.uow(async () => {
      order.place();
      order.note('not published');
      await shop.domain.repositoryFor(shop.Order).add(order);
    });
    for (const processor of createOutboxProcessors(shop.domain, { workerId: 'e2e' })) for (let i = 0; i < 5; i++) await processor.tick();
    const rows = (await provider.outbox.list({ limit: 10_000 })).filter((r) => r.partitionKey === `shop::order-${order.id}`);
    expect(rows.every((r) => r.status === 'published')).toBe(true);
    return rows;
  }

  const fieldsOf = (entry: [string, string[]]): Record<string, string> => {
    const map: Record<string, string> = {};
    for (let i = 0; i < entry[1].length; i += 2) map[entry[1][i]!] = entry[1][i + 1]!;
    return map;
  };

  it('structured mode: the entry holds the whole CloudEvent as application/cloudevents+json', async () => {
    const rows = await publishAnOrder();
    const row = rows.find((r) => r.targetBroker === 'partners')!;
    const entries = (await redis.xrange(`${structured}shop::order`, '-', '+')) as [string, string[]][];
    expect(entries).toHaveLength(1);
    const fields = fieldsOf(entries[0]!);
    expect(Object.keys(fields).sort()).toEqual(['cloudevent', 'content-type']);
    expect(fields['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    const { data, ...attributes } = JSON.parse(fields.cloudevent!) as Record<string, unknown>;
    expect(attributes.datacontenttype).toBe('application/json');
    expectCloudEventOfRow(attributes, data, row, '/Shop/shop%3A%3Aorder');
  });

  it('binary mode: ce_ fields carry the attributes, data is the JSON body', async () => {
    const entriesBefore = await redis.xlen(`${binary}shop::order`);
    const rows = await publishAnOrder();
    const row = rows.find((r) => r.targetBroker === 'billing')!;
    const entries = (await redis.xrange(`${binary}shop::order`, '-', '+')) as [string, string[]][];
    expect(entries).toHaveLength(entriesBefore + 1);
    const fields = fieldsOf(entries.at(-1)!);
    expect(fields['content-type']).toBe('application/json');
    expect(fields).not.toHaveProperty('envelope');
    const attributes = Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (k.startsWith('ce_') ? [[k.slice(3), v]] : [])));
    expectCloudEventOfRow(attributes, JSON.parse(fields.data!), row, 'https://shop.example.com/orders');
  });
});
