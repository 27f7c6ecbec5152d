/**
 * The set-up every CloudEvents e2e test of the outbox shares, whatever the broker: the order
 * domain on the test's database, relaying to its `default` broker and to two external brokers
 * that send CloudEvents, `structured` (the default source) and `binary` (source BINARY_SOURCE).
 */
import { expect } from 'vitest';
import type { DatabaseProvider, OutboxRow } from '@protean-ts/core';
import { createOutboxProcessors } from '../../src/index.js';
import { makeOrderDomain } from './order-domain.js';
import type { TempDatabase } from './real-services.js';

/** The source attribute a broker without `cloudevents_source` sends: `/<domain>/<stream category>`. */
export const DEFAULT_SOURCE = '/Shop/shop%3A%3Aorder';
export const BINARY_SOURCE = 'https://shop.example.com/orders';

export interface CloudEventShop {
  shop: ReturnType<typeof makeOrderDomain>;
  provider: DatabaseProvider;
  /** Places an order (OrderPlaced is published, OrderNoted is not) and relays it: the outbox rows of its stream, all published. */
  publishAnOrder(): Promise<OutboxRow[]>;
}

/** `brokers`: each broker's connection and names; the CloudEvents settings are added here. */
export async function cloudEventShop(db: TempDatabase, brokers: Record<'default' | 'structured' | 'binary', Record<string, unknown>>): Promise<CloudEventShop> {
  const shop = makeOrderDomain();
  await shop.domain.init({
    config: {
      databases: { default: { provider: 'postgresql', database_uri: db.uri } },
      brokers: {
        default: brokers.default as never,
        structured: { ...brokers.structured, message_format: 'cloudevents' } as never,
        binary: { ...brokers.binary, message_format: 'cloudevents', cloudevents_mode: 'binary', cloudevents_source: BINARY_SOURCE } as never,
      },
      enable_outbox: true,
      outbox: { external_brokers: ['structured', 'binary'] },
    },
  });
  const provider = shop.domain.providers.get('default')!;
  await provider.setupSchema([shop.domain.aggregateSchemaFor(shop.Order)], { outbox: true });

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
  return { shop, provider, publishAnOrder };
}
