/**
 * The transactional outbox through the public API on a real PostgreSQL: `provider =
 * "postgresql"` loads @protean-ts/mikro-orm on demand through the adapter registry, and events
 * are written to protean_outbox in the aggregate's transaction, or not at all.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configureLogging } from '../../src/index.js';
import { createTemporaryDatabase, POSTGRES, servicesUp, type TemporaryDatabase } from '@protean-ts/conformance';
import { makeShop } from './fixtures/shop-domain.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('transactional outbox on PostgreSQL', () => {
  const shop = makeShop();
  let db: TemporaryDatabase;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const outboxCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM protean_outbox'))[0]!.n;
  const orderCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM "order"'))[0]!.n;

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTemporaryDatabase({ label: 'core_runtime' });
    await shop.domain.init({
      config: {
        event_processing: 'async',
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
      },
    });
    await shop.domain.providers.get('default')!.setupSchema(shop.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  });
  afterAll(async () => {
    await shop.domain.close();
    await db?.drop();
    configureLogging(restoreLogging);
  });
  beforeEach(async () => {
    await db.query('TRUNCATE protean_outbox, "order", "order_line" CASCADE');
  });

  it('loaded the postgresql provider through the adapter registry', () => {
    expect(shop.domain.providers.get('default')!.kind).toBe('postgresql');
  });

  it('writes the events in the aggregate’s transaction: invisible before the commit, present after', async () => {
    await shop.domain.uow(async () => {
      const order = shop.Order.create({ customer: 'Ann', status: 'PENDING', lines: [shop.OrderLine.create({ sku: 'A', quantity: 1 })] });
      order.place();
      await shop.domain.repositoryFor(shop.Order).add(order);
      expect(await orderCount()).toBe(0);
    });
    // The outbox rows are appended at commit, in the same transaction as the order.
    expect(await orderCount()).toBe(1);
    const rows = await db.query<{ message_type: string; partition_key: string; status: string }>(
      'SELECT message_type, partition_key, status FROM protean_outbox',
    );
    expect(rows).toEqual([expect.objectContaining({ message_type: 'Shop.OrderPlaced.v1', status: 'pending' })]);
  });

  it('leaves neither aggregate nor outbox row when the handler fails after saving', async () => {
    await expect(shop.domain.process(shop.FailingCommand.create({ customer: 'Ann' }))).rejects.toThrow('handler gave up after saving');
    expect(await orderCount()).toBe(0);
    expect(await outboxCount()).toBe(0);
  });

  it('envelopes survive jsonb storage: a stored event is handled with its checksum intact', async () => {
    const id = await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
    const [row] = await shop.domain.providers.get('default')!.outbox.list({ limit: 10 });
    expect(row!.envelope.data.orderId).toBe(id);
    expect(await shop.domain.handleMessage(row!.envelope, { handler: shop.Mailer })).toBe('handled');
    expect(shop.seen.at(-1)!.event).toBeInstanceOf(shop.OrderPlaced);
  });

  it('queues an asynchronous command in the outbox of the default database', async () => {
    const messageId = await shop.domain.process(shop.PlaceOrder.create({ customer: 'Bo' }), { asynchronous: true });
    const rows = await db.query<{ message_id: string; stream_name: string }>('SELECT message_id, stream_name FROM protean_outbox');
    expect(rows).toEqual([{ message_id: messageId, stream_name: 'shop::order:command' }]);
    expect(await orderCount()).toBe(0);
  });
});
