import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseRepository,
  configureLogging,
  Domain,
  ExpectedVersionError,
  field,
  InvalidQueryError,
  NotEventSourcedError,
  ObjectNotFoundError,
  RegistrationError,
  UniqueViolationError,
  type MemoryProvider,
} from '../../src/index.js';
import { makeShop, memoryConfig } from './fixtures/shop-domain.js';

type Shop = ReturnType<typeof makeShop>;

describe('repository', () => {
  let shop: Shop;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const repo = () => shop.domain.repositoryFor(shop.Order);
  const newOrder = (customer = 'Ann', extra: { total?: number; reference?: string } = {}) =>
    shop.Order.create({ customer, status: 'PENDING', lines: [shop.OrderLine.create({ sku: 'A', quantity: 1 })], ...extra });

  beforeEach(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig() });
  });
  afterEach(async () => {
    await shop.domain.close();
    configureLogging(restoreLogging);
  });

  it('refuses as-of loads of an aggregate stored as rows with NotEventSourcedError', async () => {
    const order = newOrder();
    await repo().add(order);
    await expect(repo().get(order.id, { atVersion: 0 })).rejects.toThrow(NotEventSourcedError);
    await expect(repo().get(order.id, { asOf: new Date() })).rejects.toThrow(
      'Order is not event-sourced, so its repository cannot load a past version or time',
    );
  });

  it('adds a new aggregate at version 0 and gets it back as a copy', async () => {
    const order = newOrder();
    expect(order._version).toBe(-1);
    expect(await repo().add(order)).toBe(order);
    expect(order._version).toBe(0);
    const loaded = await repo().get(order.id);
    expect(loaded).not.toBe(order);
    expect(loaded.toPlain()).toEqual(order.toPlain());
    expect(loaded._version).toBe(0);
    expect(loaded.lines![0]).toBeInstanceOf(shop.OrderLine);
  });

  it('updates a loaded aggregate and advances its version', async () => {
    const order = newOrder();
    await repo().add(order);
    await shop.domain.uow(async () => {
      const o = await repo().get(order.id);
      o.atomicChange(() => {
        o.customer = 'Bo';
        o.total = 3;
      });
      await repo().add(o);
      expect(o._version).toBe(1);
    });
    const loaded = await repo().get(order.id);
    expect(loaded).toMatchObject({ customer: 'Bo', total: 3, _version: 1 });
  });

  it('throws ObjectNotFoundError naming the aggregate and id', async () => {
    await expect(repo().get('missing-id')).rejects.toThrow(ObjectNotFoundError);
    await expect(repo().get('missing-id')).rejects.toThrow('Order with id "missing-id" does not exist');
    expect(await repo().find('missing-id')).toBeUndefined();
  });

  it('refuses a lost compare-and-set with ExpectedVersionError and leaves the winner stored', async () => {
    const order = newOrder();
    await repo().add(order);
    const first = await repo().get(order.id);
    const second = await repo().get(order.id);
    first.customer = 'First';
    await repo().add(first);
    second.customer = 'Second';
    await expect(repo().add(second)).rejects.toThrow(ExpectedVersionError);
    expect(second._version).toBe(0);
    expect((await repo().get(order.id)).customer).toBe('First');
  });

  it('refuses to add the same new aggregate twice', async () => {
    const order = newOrder();
    await repo().add(order);
    const copy = shop.Order.fromPlain(order.toPlain());
    await expect(repo().add(copy)).rejects.toThrow(/already exists/);
  });

  it('refuses duplicates of unique fields', async () => {
    await repo().add(newOrder('A', { reference: 'R-1' }));
    await expect(repo().add(newOrder('B', { reference: 'R-1' }))).rejects.toThrow(UniqueViolationError);
  });

  it('queries with filters, ordering and paging, and counts', async () => {
    for (const [customer, total] of [
      ['Ann', 10],
      ['Bo', 20],
      ['Cy', 30],
      ['Di', 40],
    ] as const)
      await repo().add(newOrder(customer, { total }));
    const found = await repo().query({ filter: { total: { $gte: 20 } }, orderBy: { total: 'desc' }, limit: 2 });
    expect(found.map((o) => o.customer)).toEqual(['Di', 'Cy']);
    expect((await repo().query({ orderBy: { customer: 'asc' }, offset: 3 })).map((o) => o.customer)).toEqual(['Di']);
    expect((await repo().query()).length).toBe(4);
    expect(await repo().count()).toBe(4);
    expect(await repo().count({ customer: { $in: ['Ann', 'Bo', 'Zed'] } })).toBe(2);
    await expect(repo().query({ filter: { colour: 'red' } })).rejects.toThrow(InvalidQueryError);
  });

  it('deletes by instance or id and reports whether it was there', async () => {
    const a = newOrder('A');
    const b = newOrder('B');
    await repo().add(a);
    await repo().add(b);
    expect(await repo().delete(a)).toBe(true);
    expect(await repo().delete(b.id)).toBe(true);
    expect(await repo().delete(b.id)).toBe(false);
    expect(await repo().count()).toBe(0);
  });

  it('a delete inside a unit of work is undone when the unit fails', async () => {
    const order = newOrder();
    await repo().add(order);
    await expect(
      shop.domain.uow(async () => {
        await repo().delete(order.id);
        expect(await repo().find(order.id)).toBeUndefined();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await repo().find(order.id)).toBeDefined();
  });

  it('outside a unit of work, add runs in a unit of its own so raised events reach the outbox', async () => {
    const order = newOrder();
    order.place();
    await repo().add(order);
    const rows = await (shop.domain.providers.get('default') as MemoryProvider).outbox.list({ limit: 10 });
    expect(rows.map((r) => r.messageType)).toContain('Shop.OrderPlaced.v1');
    expect(order.pendingEvents()).toHaveLength(0);
  });

  it('refuses objects that are not of its aggregate', async () => {
    await expect(repo().add(shop.OrderLine.create({ sku: 'A', quantity: 1 }) as never)).rejects.toThrow(/can only add Order objects, got OrderLine/);
  });

  it('returns the registered custom repository, with its own methods and the generic ones', async () => {
    const custom = repo() as unknown as InstanceType<typeof shop.OrderRepository> & ReturnType<typeof repo>;
    expect(custom).toBeInstanceOf(shop.OrderRepository);
    expect(repo()).toBe(custom);
    await custom.add(newOrder('Zed'));
    await custom.add(newOrder('Amy'));
    expect((await custom.byCustomer('Zed')).map((o) => o.customer)).toEqual(['Zed']);
    expect(await custom.count()).toBe(2);
  });

  it('gives the custom repository, typed as its class, for domain.repositoryFor(OrderRepository)', async () => {
    const orders = shop.domain.repositoryFor(shop.OrderRepository);
    expect(orders).toBe(repo());
    const added = await orders.add(newOrder('Zed'));
    expect((await orders.get(added.id)).customer).toBe('Zed');
    expect((await orders.byCustomer('Zed')).map((o) => o.id)).toEqual([added.id]);
    expect(await orders.delete(added)).toBe(true);
    expect(await orders.find(added.id)).toBeUndefined();
  });

  it('uses a generic method the custom repository overrides, whose super reaches the framework one', async () => {
    const domain = new Domain('Overrides');
    @domain.aggregate()
    class Note extends BaseAggregate {
      @field.string({ required: true }) text!: string;
    }
    @domain.repository({ partOf: Note })
    class Notes extends BaseRepository<Note> {
      override async add(note: Note): Promise<Note> {
        note.text = note.text.trim();
        return super.add(note);
      }
    }
    await domain.init({ config: memoryConfig() });
    try {
      const note = await domain.repositoryFor(Note).add(Note.create({ text: '  hello  ' }));
      expect((await domain.repositoryFor(Notes).get(note.id)).text).toBe('hello');
    } finally {
      await domain.close();
    }
  });

  it('says how to register a repository class it does not know', () => {
    class StrayOrders extends BaseRepository {}
    expect(() => shop.domain.repositoryFor(StrayOrders)).toThrow(RegistrationError);
    expect(() => shop.domain.repositoryFor(StrayOrders)).toThrow(
      'StrayOrders is not a registered repository of domain "Shop"; decorate it with @domain.repository({ partOf: SomeAggregate })',
    );
  });

  it('refuses a custom repository class its aggregate does not use, naming the one it uses', async () => {
    const domain = new Domain('TwoRepositories');
    @domain.aggregate()
    class Note extends BaseAggregate {
      @field.string() text?: string;
    }
    @domain.repository({ partOf: Note })
    class Notes extends BaseRepository<Note> {}
    @domain.repository({ partOf: Note, databaseProvider: 'archive' })
    class ArchivedNotes extends BaseRepository<Note> {}
    await domain.init({ config: memoryConfig() });
    try {
      expect(domain.repositoryFor(Notes)).toBeInstanceOf(Notes);
      expect(() => domain.repositoryFor(ArchivedNotes)).toThrow(
        'ArchivedNotes is registered for Note, but Note uses Notes (ArchivedNotes is only for databaseProvider "archive")',
      );
    } finally {
      await domain.close();
    }
  });
});
