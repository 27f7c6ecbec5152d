/**
 * RabbitMQ on both ends of the outbox: the default broker (full envelopes, for the stream
 * subscriptions) and an external broker for events marked `published: true`, where another
 * system's own queue, bound to the stream's exchange with a plain AMQP client, receives the
 * stripped envelope as JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, type AsyncMessage, type Channel } from 'rabbitmq-client';
import type { DatabaseProvider, OutboxRow } from '@protean-ts/core';
import { createRabbitmqVhost, deleteRabbitmqVhost, POSTGRES, RABBITMQ, rabbitmqUri, servicesUp } from '@protean-ts/conformance';
import { createOutboxProcessors } from '../src/index.js';
import { makeOrderDomain } from './support/order-domain.js';
import { createTempDatabase, drainStream, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, RABBITMQ);

describe.skipIf(!up)('outbox end to end: PostgreSQL → RabbitMQ, with RabbitMQ as the external broker', () => {
  let db: TempDatabase;
  let vhost: string;
  let shop: ReturnType<typeof makeOrderDomain>;
  let provider: DatabaseProvider;
  let partner: Connection;
  let partnerChannel: Channel;
  const received: AsyncMessage[] = [];

  beforeAll(async () => {
    db = await createTempDatabase('outbox_rabbit_e2e');
    vhost = await createRabbitmqVhost('outbox-external');
    // The other system: its own durable queue bound to the exchange the external broker publishes to.
    partner = new Connection(rabbitmqUri(vhost));
    const channel = (partnerChannel = await partner.acquire());
    await channel.exchangeDeclare({
      exchange: 'partners.shop::order',
      type: 'fanout',
      durable: true,
      arguments: { 'alternate-exchange': 'partners.protean.unrouted' },
    });
    await channel.queueDeclare({ queue: 'billing-system', durable: true });
    await channel.queueBind({ queue: 'billing-system', exchange: 'partners.shop::order' });
    await channel.basicConsume({ queue: 'billing-system', noAck: true }, (message) => void received.push(message));

    shop = makeOrderDomain();
    await shop.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri } },
        brokers: {
          default: { provider: 'rabbitmq', uri: rabbitmqUri(vhost) },
          partners: { provider: 'rabbitmq', uri: rabbitmqUri(vhost), name_prefix: 'partners.' },
        },
        enable_outbox: true,
        outbox: { external_brokers: ['partners'] },
      },
    });
    provider = shop.domain.providers.get('default')!;
    await provider.setupSchema([shop.domain.aggregateSchemaFor(shop.Order)], { outbox: true });
  });
  afterAll(async () => {
    await shop?.domain.close();
    await partnerChannel?.close();
    await partner?.close();
    await db?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  });

  const rowsOf = async (orderId: string): Promise<OutboxRow[]> =>
    (await provider.outbox.list({ limit: 10_000 })).filter((r) => r.partitionKey === `shop::order-${orderId}`);

  it('relays the full envelope to the default broker and the stripped one to the other system, each confirmed', async () => {
    const order = shop.Order.create({ customer: 'Ben' });
    await shop.domain.uow(async () => {
      order.place();
      order.note('gift wrap');
      await shop.domain.repositoryFor(shop.Order).add(order);
    });
    const processors = createOutboxProcessors(shop.domain, { workerId: 'e2e' });
    expect(processors.map((p) => p.name)).toEqual(['outbox-processor-default-to-default', 'outbox-processor-default-to-partners-external']);
    for (const processor of processors) for (let i = 0; i < 5; i++) await processor.tick();
    const rows = await rowsOf(order.id);
    expect(rows.every((r) => r.status === 'published')).toBe(true);

    const main = await drainStream(shop.domain.brokers.get('default')!, 'shop::order');
    const placedRow = rows.find((r) => r.targetBroker === 'default' && r.messageType === 'Shop.OrderPlaced.v1')!;
    expect(main.map((e) => e.metadata.headers.type)).toEqual(['Shop.OrderPlaced.v1', 'Shop.OrderNoted.v1']);
    expect(main[0]).toEqual(placedRow.envelope);

    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(1);
    const external = received[0]!;
    // JSON any AMQP client can read, with the message type and a persistent delivery mode.
    expect(external.contentType).toBe('application/json');
    expect(external.type).toBe('Shop.OrderPlaced.v1');
    expect(external.durable).toBe(true);
    expect(external.body).toEqual(rows.find((r) => r.targetBroker === 'partners')!.envelope);
    expect(external.body).not.toEqual(placedRow.envelope);
    expect((external.body as { metadata: { envelope: Record<string, unknown> } }).metadata.envelope).not.toHaveProperty('checksum');
  });
});
