import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureLogging, currentUnitOfWork, type LogRecord, type MemoryProvider } from '../../src/index.js';
import { makeShop, memoryConfig } from './fixtures/shop-domain.js';

type Shop = ReturnType<typeof makeShop>;

describe('unit of work', () => {
  let shop: Shop;
  let db: MemoryProvider;
  const logs: LogRecord[] = [];
  let restoreLogging: ReturnType<typeof configureLogging>;

  async function start(overrides: Record<string, unknown> = {}): Promise<void> {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig(overrides) });
    db = shop.domain.providers.get('default') as MemoryProvider;
  }
  const newOrder = (customer = 'Ann') => shop.Order.create({ customer, status: 'PENDING', lines: [shop.OrderLine.create({ sku: 'A', quantity: 1 })] });
  const outboxRows = () => db.outbox.list({ limit: 1000 });

  beforeEach(() => {
    logs.length = 0;
    restoreLogging = configureLogging({ sink: (_line, record) => logs.push(record) });
  });
  afterEach(async () => {
    await shop?.domain.close();
    configureLogging(restoreLogging);
  });

  describe('commit and rollback', () => {
    beforeEach(() => start());

    it('commits the writes of the unit when the function resolves', async () => {
      const order = newOrder();
      const result = await shop.domain.uow(async () => {
        await shop.domain.repositoryFor(shop.Order).add(order);
        return 'done';
      });
      expect(result).toBe('done');
      expect(order._version).toBe(0);
      expect((await shop.domain.repositoryFor(shop.Order).get(order.id)).customer).toBe('Ann');
    });

    it('writes nothing until the unit commits', async () => {
      const order = newOrder();
      await shop.domain.uow(async () => {
        await shop.domain.repositoryFor(shop.Order).add(order);
        // A read outside the unit (its own auto-commit read) must not see the staged write.
        const outside = await db.dao(shop.domain.aggregateSchemaFor(shop.Order)).get(order.id);
        expect(outside).toBeUndefined();
        expect(await shop.domain.repositoryFor(shop.Order).find(order.id)).toBeDefined();
      });
      expect(await db.dao(shop.domain.aggregateSchemaFor(shop.Order)).get(order.id)).toBeDefined();
    });

    it('rolls everything back when the function throws, restoring versions and dropping events', async () => {
      const order = newOrder();
      order.place();
      await expect(
        shop.domain.uow(async () => {
          await shop.domain.repositoryFor(shop.Order).add(order);
          expect(order._version).toBe(0);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await shop.domain.repositoryFor(shop.Order).find(order.id)).toBeUndefined();
      expect(order._version).toBe(-1);
      expect(order.pendingEvents()).toHaveLength(0);
      expect(await outboxRows()).toHaveLength(0);
      expect(shop.seen).toHaveLength(0);
    });

    it('nested units join the outermost: an inner success is undone by an outer failure', async () => {
      const a = newOrder('A');
      const b = newOrder('B');
      let innerUnit: unknown;
      let outerUnit: unknown;
      await expect(
        shop.domain.uow(async () => {
          outerUnit = currentUnitOfWork();
          await shop.domain.repositoryFor(shop.Order).add(a);
          await shop.domain.uow(async () => {
            innerUnit = currentUnitOfWork();
            await shop.domain.repositoryFor(shop.Order).add(b);
          });
          expect(await db.dao(shop.domain.aggregateSchemaFor(shop.Order)).get(b.id)).toBeUndefined();
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(innerUnit).toBe(outerUnit);
      expect(await shop.domain.repositoryFor(shop.Order).count()).toBe(0);
    });

    it('exposes the active unit with its transactions by provider, and nothing outside', async () => {
      expect(currentUnitOfWork()).toBeUndefined();
      await shop.domain.uow(async () => {
        const uow = currentUnitOfWork()!;
        expect(uow.transactionsByProvider.size).toBe(0);
        await shop.domain.repositoryFor(shop.Order).add(newOrder());
        expect([...uow.transactionsByProvider.keys()]).toEqual(['default']);
        expect(uow.transactionsByProvider.get('default')!.providerName).toBe('default');
      });
      expect(currentUnitOfWork()).toBeUndefined();
    });

    it('opens one transaction per provider even when saves run concurrently', async () => {
      let begins = 0;
      const begin = db.begin.bind(db);
      db.begin = async () => {
        begins += 1;
        return begin();
      };
      await shop.domain.uow(async () => {
        await Promise.all([newOrder('A'), newOrder('B'), newOrder('C')].map((o) => shop.domain.repositoryFor(shop.Order).add(o)));
      });
      expect(begins).toBe(1);
      expect(await shop.domain.repositoryFor(shop.Order).count()).toBe(3);
    });

    it('refuses use of a unit after it finished', async () => {
      let unit: ReturnType<typeof currentUnitOfWork>;
      await shop.domain.uow(async () => {
        unit = currentUnitOfWork();
      });
      await expect(unit!.transactionFor('default')).rejects.toThrow(/already committed/);
    });
  });

  describe('outbox', () => {
    beforeEach(() =>
      start({
        brokers: { default: { provider: 'inline' }, partners: { provider: 'inline' } },
        outbox: { external_brokers: ['partners'], retry: { max_attempts: 7 } },
      }),
    );

    it('writes one row per event in the same transaction as the aggregate', async () => {
      const order = newOrder();
      order.place();
      order.rename('Bo');
      await shop.domain.uow(async () => {
        await shop.domain.repositoryFor(shop.Order).add(order);
        expect(await outboxRows()).toHaveLength(0);
      });
      const rows = (await outboxRows()).filter((r) => r.targetBroker === 'default');
      // The third row comes later, from the Auditor's own unit of work.
      expect(rows.map((r) => r.messageType)).toEqual(['Shop.OrderPlaced.v1', 'Shop.CustomerChanged.v1', 'Shop.OrderAudited.v1']);
      const [placed, renamed] = rows;
      expect(placed).toMatchObject({ streamName: 'shop::order', partitionKey: `shop::order-${order.id}`, sequence: 1, maxRetries: 7 });
      expect(renamed).toMatchObject({ partitionKey: `shop::order-${order.id}`, sequence: 2 });
      expect(placed!.envelope.metadata.envelope.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(placed!.envelope.data).toMatchObject({ orderId: order.id, customer: 'Ann' });
      expect(order.pendingEvents()).toHaveLength(0);
    });

    it('keeps the sequence of an aggregate growing across commits', async () => {
      const order = newOrder();
      order.rename('B');
      await shop.domain.repositoryFor(shop.Order).add(order);
      const loaded = await shop.domain.repositoryFor(shop.Order).get(order.id);
      loaded.rename('C');
      loaded.rename('D');
      await shop.domain.repositoryFor(shop.Order).add(loaded);
      const sequences = (await outboxRows()).filter((r) => r.targetBroker === 'default').map((r) => r.sequence);
      expect(sequences).toEqual([1, 2, 3]);
    });

    it('adds a stripped row per external broker for published events only', async () => {
      const order = newOrder();
      order.place();
      order.rename('Bo');
      await shop.domain.repositoryFor(shop.Order).add(order);
      const external = (await outboxRows()).filter((r) => r.targetBroker === 'partners');
      expect(external.map((r) => r.messageType)).toEqual(['Shop.OrderPlaced.v1']);
      const internal = (await outboxRows()).find((r) => r.targetBroker === 'default' && r.messageType === 'Shop.OrderPlaced.v1')!;
      expect(external[0]!.messageId).toBe(internal.messageId);
      // No checksum outside the domain; the outbox still numbers the external broker's rows per key.
      expect(external[0]!.envelope.metadata.envelope).toEqual({ specversion: '1.0', position: { key: external[0]!.partitionKey, sequence: 1 } });
      expect(external[0]!.envelope.metadata.domain).not.toHaveProperty('expectedVersion');
      expect(external[0]!.envelope.metadata.headers).toEqual(internal.envelope.metadata.headers);
    });

    it('leaves no rows when the unit rolls back', async () => {
      const order = newOrder();
      order.place();
      await expect(
        shop.domain.uow(async () => {
          await shop.domain.repositoryFor(shop.Order).add(order);
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await outboxRows()).toHaveLength(0);
    });

    it('drops the events and rows when the commit itself fails (version conflict found at commit)', async () => {
      const order = newOrder();
      await shop.domain.repositoryFor(shop.Order).add(order);
      const first = await shop.domain.repositoryFor(shop.Order).get(order.id);
      const second = await shop.domain.repositoryFor(shop.Order).get(order.id);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = shop.domain.uow(async () => {
        first.rename('first');
        await shop.domain.repositoryFor(shop.Order).add(first);
        await gate;
      });
      second.rename('second');
      await shop.domain.repositoryFor(shop.Order).add(second);
      release();
      await expect(slow).rejects.toThrow(/changed concurrently/);
      const renamed = (await outboxRows()).filter((r) => r.messageType === 'Shop.CustomerChanged.v1');
      expect(renamed.map((r) => r.envelope.data.customer)).toEqual(['second']);
      expect(first.pendingEvents()).toHaveLength(0);
      expect((await shop.domain.repositoryFor(shop.Order).get(order.id)).customer).toBe('second');
    });
  });

  describe('outbox off', () => {
    beforeEach(() => start({ enable_outbox: false }));

    it('writes no rows and still hands events to sync handlers', async () => {
      expect(shop.domain.outboxEnabled).toBe(false);
      const order = newOrder();
      order.place();
      await shop.domain.repositoryFor(shop.Order).add(order);
      expect(await outboxRows()).toHaveLength(0);
      expect(shop.seen.map((s) => s.handler)).toContain('Mailer');
    });
  });

  describe('sync event processing', () => {
    beforeEach(() => start());

    it('dispatches events to handlers only after the commit', async () => {
      const order = newOrder();
      order.place();
      await shop.domain.uow(async () => {
        await shop.domain.repositoryFor(shop.Order).add(order);
        expect(shop.seen).toHaveLength(0);
      });
      expect(
        shop.seen
          .filter((s) => s.event instanceof shop.OrderPlaced)
          .map((s) => s.handler)
          .sort(),
      ).toEqual(['Auditor', 'Mailer']);
      // The Auditor saved in its own unit, whose event reached the Mailer in turn.
      expect(shop.seen.some((s) => s.event instanceof shop.OrderAudited)).toBe(true);
      expect((await shop.domain.repositoryFor(shop.Order).get(order.id))._version).toBe(1);
    });

    it('hands an aggregate’s events to each handler in commit order, also those its handlers raise', async () => {
      const order = newOrder();
      order.place();
      await shop.domain.repositoryFor(shop.Order).add(order);
      // The Auditor, run first, commits OrderAudited on the same order while the Mailer has not seen OrderPlaced yet.
      const mailed = shop.seen.filter((s) => s.handler === 'Mailer').map((s) => s.event.constructor.name);
      expect(mailed).toEqual(['OrderPlaced', 'OrderAudited']);
    });

    it('a failing sync handler is logged and does not undo the commit or stop other handlers', async () => {
      shop.failingHandler.fail = true;
      const order = newOrder();
      order.place();
      await shop.domain.repositoryFor(shop.Order).add(order);
      expect(await shop.domain.repositoryFor(shop.Order).find(order.id)).toBeDefined();
      expect(shop.seen.map((s) => s.handler).sort()).toEqual(['Auditor', 'Mailer']);
      const failure = logs.find((r) => r.level === 'error' && r.msg.startsWith('event handler failed'));
      expect(failure).toMatchObject({ handler: 'Auditor.onPlaced', messageType: 'Shop.OrderPlaced.v1' });
    });

    it('does not dispatch when event_processing is async', async () => {
      await shop.domain.close();
      await start({ event_processing: 'async' });
      const order = newOrder();
      order.place();
      await shop.domain.repositoryFor(shop.Order).add(order);
      expect(shop.seen).toHaveLength(0);
      expect(await outboxRows()).toHaveLength(1);
    });
  });

  describe('correlation and causation', () => {
    beforeEach(() => start());

    it('flows from a command to the events raised while handling it, and on to the events of their handlers', async () => {
      const command = shop.PlaceOrder.create({ customer: 'Ann' });
      await shop.domain.process(command);
      const rows = await outboxRows();
      const placed = rows.find((r) => r.messageType === 'Shop.OrderPlaced.v1')!;
      const audited = rows.find((r) => r.messageType === 'Shop.OrderAudited.v1')!;
      const commandId = placed.causationId!;
      expect(placed.correlationId).toBe(commandId);
      expect(placed.envelope.metadata.domain).toMatchObject({ correlationId: commandId, causationId: commandId });
      expect(audited.correlationId).toBe(commandId);
      expect(audited.causationId).toBe(placed.messageId);
    });

    it('regression: a command handled inside an outer unit keeps the outer correlation but is itself the cause of its events', async () => {
      const handled = await shop.domain.uow(async () => currentUnitOfWork()!.context);
      expect(handled).toMatchObject({ correlationId: null, causationId: null });
      const id = await shop.domain.runtime.units.run(() => shop.domain.process<string>(shop.PlaceOrder.create({ customer: 'Ann' })), {
        correlationId: 'req-42',
        causationId: 'http-1',
      });
      const placed = (await outboxRows()).find((r) => r.messageType === 'Shop.OrderPlaced.v1' && r.partitionKey.endsWith(id))!;
      expect(placed.correlationId).toBe('req-42');
      // The command joined the outer unit but is the cause of what its handler raised.
      expect(placed.causationId).not.toBe('http-1');
      expect(placed.causationId).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});
