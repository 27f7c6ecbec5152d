/**
 * NATS JetStream both ways the outbox uses a broker: as `outbox.broker` (the full envelope, what
 * stream subscriptions read) and as an external broker for `published: true` events (the
 * stripped envelope), which another system reads with a plain JetStream consumer on the subject.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { DatabaseProvider, OutboxRow } from '@protean-ts/core';
import { NATS, POSTGRES, servicesUp } from '@protean-ts/conformance';
import { type NatsBroker } from '@protean-ts/nats';
import { createOutboxProcessors } from '../src/index.js';
import { makeOrderDomain } from './support/order-domain.js';
import { createTempDatabase, drainStream, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, NATS);
const NATS_URI = 'nats://127.0.0.1:4222';
const prefix = `ptest-outbox-ext-${randomBytes(4).toString('hex')}-`;

describe.skipIf(!up)('outbox end to end: unit of work → PostgreSQL → NATS JetStream', () => {
  let db: TempDatabase;
  let shop: ReturnType<typeof makeOrderDomain>;
  let provider: DatabaseProvider;

  beforeAll(async () => {
    db = await createTempDatabase('outbox_nats_e2e');
    shop = makeOrderDomain();
    await shop.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri } },
        brokers: {
          default: { provider: 'nats', uri: NATS_URI, stream_prefix: `${prefix}main-` },
          audit: { provider: 'nats', uri: NATS_URI, stream_prefix: `${prefix}audit-`, subject_prefix: `${prefix}audit` },
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
    if (up) {
      const nc = await connect({ servers: '127.0.0.1:4222' });
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names()) if (name.startsWith(prefix) || name.startsWith(`KV_${prefix}`)) await jsm.streams.delete(name);
      await nc.close();
    }
  });

  const rowsOf = async (orderId: string): Promise<OutboxRow[]> =>
    (await provider.outbox.list({ limit: 10_000 })).filter((r) => r.partitionKey === `shop::order-${orderId}`);

  it('relays the full envelope to the default broker and the stripped one to the external broker, readable by any JetStream consumer', async () => {
    const order = shop.Order.create({ customer: 'Ben' });
    await shop.domain.uow(async () => {
      order.place();
      order.note('gift wrap');
      await shop.domain.repositoryFor(shop.Order).add(order);
    });
    const rows = await rowsOf(order.id);
    const processors = createOutboxProcessors(shop.domain, { workerId: 'e2e' });
    for (const processor of processors) {
      for (let i = 0; i < 5; i++) await processor.tick();
    }
    expect((await rowsOf(order.id)).every((r) => r.status === 'published')).toBe(true);

    const mainRows = rows.filter((r) => r.targetBroker === 'default').sort((a, b) => a.sequence - b.sequence);
    const main = await drainStream(shop.domain.brokers.get('default')!, 'shop::order');
    expect(main).toEqual(mainRows.map((r) => r.envelope));
    const stripped = rows.find((r) => r.targetBroker === 'audit')!.envelope;
    expect(stripped).not.toEqual(mainRows[0]!.envelope);

    // Another system: a plain JetStream consumer on the external broker's subject.
    const audit = shop.domain.brokers.get('audit') as NatsBroker;
    const names = audit.namesOf('shop::order');
    expect(names.subject).toBe(`${prefix}audit.${prefix}audit-shop_3a_3aorder`);
    const nc = await connect({ servers: '127.0.0.1:4222' });
    try {
      const consumer = await jetstream(nc).consumers.get(names.stream);
      const message = await consumer.next({ expires: 2_000 });
      expect(message?.subject).toBe(names.subject);
      expect(message?.json()).toEqual(stripped);
      expect(message?.headers?.get('Nats-Msg-Id')).toBe(stripped.metadata.headers.id);
    } finally {
      await nc.close();
    }
  });
});
