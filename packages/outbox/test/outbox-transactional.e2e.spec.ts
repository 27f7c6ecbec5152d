/**
 * The whole path: a unit of work commits an aggregate and its outbox rows in one PostgreSQL
 * transaction (or neither, when it throws), and the processors `createOutboxProcessors` builds
 * for the domain relay them to Redis: the full envelope to the outbox broker, the stripped one
 * to an external broker for events marked `published: true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseProvider, OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { createOutboxProcessors } from '../src/index.js';
import { makeOrderDomain } from './support/order-domain.js';
import { createTempDatabase, drainStream, REDIS_URI, streamPrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('outbox end to end: unit of work → PostgreSQL → Redis', () => {
  let db: TempDatabase;
  let shop: ReturnType<typeof makeOrderDomain>;
  let provider: DatabaseProvider;

  beforeAll(async () => {
    db = await createTempDatabase('outbox_e2e');
    shop = makeOrderDomain();
    await shop.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri } },
        brokers: {
          default: { provider: 'redis', uri: REDIS_URI, stream_prefix: streamPrefix('e2e-main') },
          audit: { provider: 'redis', uri: REDIS_URI, stream_prefix: streamPrefix('e2e-audit') },
        },
        enable_outbox: true,
        outbox: { external_brokers: ['audit'] },
      },
    });
    provider = shop.domain.providers.get('default')!;
    await provider.setupSchema([shop.domain.aggregateSchemaFor(shop.Order)], { outbox: true });
  });
  afterAll(async () => {
    await shop?.domain.close();
    await db?.drop();
  });

  const rowsOf = async (orderId: string): Promise<OutboxRow[]> =>
    (await provider.outbox.list({ limit: 10_000 })).filter((r) => r.partitionKey === `shop::order-${orderId}`);

  it('a unit of work that throws leaves neither the aggregate nor an outbox row', async () => {
    let orderId = '';
    await expect(
      shop.domain.uow(async () => {
        const order = shop.Order.create({ customer: 'Ann' });
        orderId = order.id;
        order.place();
        await shop.domain.repositoryFor(shop.Order).add(order);
        throw new Error('payment declined');
      }),
    ).rejects.toThrow('payment declined');
    expect(await provider.dao(shop.domain.aggregateSchemaFor(shop.Order)).get(orderId)).toBeUndefined();
    expect(await rowsOf(orderId)).toEqual([]);
  });

  it('a committed unit writes the aggregate and its rows together, and the processors relay them', async () => {
    const order = shop.Order.create({ customer: 'Ben' });
    await shop.domain.uow(async () => {
      order.place();
      order.note('gift wrap');
      await shop.domain.repositoryFor(shop.Order).add(order);
    });
    expect((await provider.dao(shop.domain.aggregateSchemaFor(shop.Order)).get(order.id))?.customer).toBe('Ben');

    const rows = await rowsOf(order.id);
    // OrderPlaced for both brokers (it is published), OrderNoted for the outbox broker only.
    expect(rows.map((r) => [r.messageType, r.targetBroker, r.streamName]).sort()).toEqual([
      ['Shop.OrderNoted.v1', 'default', 'shop::order'],
      ['Shop.OrderPlaced.v1', 'audit', 'shop::order'],
      ['Shop.OrderPlaced.v1', 'default', 'shop::order'],
    ]);
    const mainRows = rows.filter((r) => r.targetBroker === 'default').sort((a, b) => a.sequence - b.sequence);
    expect(mainRows.map((r) => r.messageType)).toEqual(['Shop.OrderPlaced.v1', 'Shop.OrderNoted.v1']);

    const processors = createOutboxProcessors(shop.domain, { workerId: 'e2e' });
    expect(processors.map((p) => p.name)).toEqual(['outbox-processor-default-to-default', 'outbox-processor-default-to-audit-external']);
    for (const processor of processors) {
      for (let i = 0; i < 5; i++) await processor.tick();
    }
    expect((await rowsOf(order.id)).every((r) => r.status === 'published')).toBe(true);

    const main = await drainStream(shop.domain.brokers.get('default')!, 'shop::order');
    const audit = await drainStream(shop.domain.brokers.get('audit')!, 'shop::order');
    const placedRow = mainRows[0]!;
    expect(main.map((e) => e.metadata.headers.type)).toEqual(['Shop.OrderPlaced.v1', 'Shop.OrderNoted.v1']);
    expect(main[0]).toEqual(placedRow.envelope);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toEqual(rows.find((r) => r.targetBroker === 'audit')!.envelope);
    // The external copy is the stripped envelope, not the internal one.
    expect(audit[0]).not.toEqual(placedRow.envelope);
    expect(audit[0]!.metadata.headers.id).toBe(placedRow.messageId);
  });
});
