import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AsyncCommandsNeedOutboxError,
  ChecksumMismatchError,
  configureLogging,
  HandlerNotFoundError,
  serializeMessage,
  UnknownMessageTypeError,
  type MemoryProvider,
  type OutboxRow,
} from '../../src/index.js';
import { makeShop, memoryConfig } from './fixtures/shop-domain.js';

type Shop = ReturnType<typeof makeShop>;

describe('command processing and message handling', () => {
  let shop: Shop;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const outbox = () => (shop.domain.providers.get('default') as MemoryProvider).outbox;

  async function start(overrides: Record<string, unknown> = {}): Promise<void> {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig(overrides) });
  }
  beforeEach(() => {
    restoreLogging = configureLogging({ sink: () => {} });
  });
  afterEach(async () => {
    await shop?.domain.close();
    configureLogging(restoreLogging);
  });

  describe('domain.process (sync)', () => {
    beforeEach(() => start());

    it('runs the command handler in a unit of work and returns its result', async () => {
      const id = await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      const order = await shop.domain.repositoryFor(shop.Order).get(id);
      expect(order).toMatchObject({ customer: 'Ann', status: 'PLACED' });
    });

    it('rolls back what the handler saved when it throws', async () => {
      await expect(shop.domain.process(shop.FailingCommand.create({ customer: 'Ann' }))).rejects.toThrow('handler gave up after saving');
      expect(await shop.domain.repositoryFor(shop.Order).count()).toBe(0);
      expect(await outbox().list({ limit: 10 })).toHaveLength(0);
      expect(shop.seen).toHaveLength(0);
    });

    it('throws HandlerNotFoundError when no handler is registered for the command', async () => {
      const attempt = shop.domain.process(shop.Unhandled.create({ note: 'x' }));
      await expect(attempt).rejects.toThrow(HandlerNotFoundError);
      await expect(shop.domain.process(shop.Unhandled.create({}))).rejects.toThrow('No handler for Shop.Unhandled.v1 in domain "Shop"');
    });
  });

  describe('domain.process (async)', () => {
    beforeEach(() => start());

    it('writes the command to the outbox and returns its message id without running the handler', async () => {
      const messageId = await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
      expect(await shop.domain.repositoryFor(shop.Order).count()).toBe(0);
      const [row, ...rest] = await outbox().list({ limit: 10 });
      expect(rest).toHaveLength(0);
      expect(row).toMatchObject({
        messageId,
        messageType: 'Shop.PlaceOrder.v1',
        streamName: 'shop::order:command',
        partitionKey: `shop::order:command-${messageId}`,
        targetBroker: 'default',
        correlationId: messageId,
      });
      expect(row!.envelope.metadata.domain.kind).toBe('COMMAND');
      expect(row!.envelope.metadata.headers.stream).toBe(`shop::order:command-${messageId}`);
    });

    it('is the default when command_processing = "async"', async () => {
      await shop.domain.close();
      await start({ command_processing: 'async' });
      const messageId = await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      expect((await outbox().list({ limit: 10 }))[0]!.messageId).toBe(messageId);
      expect(await shop.domain.repositoryFor(shop.Order).count()).toBe(0);
    });

    it('refuses when the outbox is off', async () => {
      await shop.domain.close();
      await start({ enable_outbox: false });
      await expect(shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true })).rejects.toThrow(AsyncCommandsNeedOutboxError);
    });

    it('a queued command is committed with the unit it was processed in, and dropped with it', async () => {
      await expect(
        shop.domain.uow(async () => {
          await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await outbox().list({ limit: 10 })).toHaveLength(0);
    });
  });

  describe('domain.handleMessage', () => {
    beforeEach(() => start({ event_processing: 'async' }));
    const rowOf = async (type: string): Promise<OutboxRow> => (await outbox().list({ limit: 100 })).find((r) => r.messageType === type)!;

    it('runs a queued command delivered by a subscription', async () => {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
      const row = await rowOf('Shop.PlaceOrder.v1');
      expect(await shop.domain.handleMessage(row.envelope)).toBe('handled');
      const [order] = await shop.domain.repositoryFor(shop.Order).query();
      expect(order).toMatchObject({ customer: 'Ann', status: 'PLACED' });
      const placed = await rowOf('Shop.OrderPlaced.v1');
      expect(placed.causationId).toBe(row.messageId);
      expect(placed.correlationId).toBe(row.correlationId);
    });

    it('runs every event handler of the type, or only the one a subscription names', async () => {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      expect(shop.seen).toHaveLength(0);
      const placed = await rowOf('Shop.OrderPlaced.v1');
      expect(await shop.domain.handleMessage(placed.envelope, { handler: shop.Mailer })).toBe('handled');
      expect(shop.seen.map((s) => s.handler)).toEqual(['Mailer']);
      expect(shop.seen[0]!.event).toBeInstanceOf(shop.OrderPlaced);
      await shop.domain.handleMessage(placed.envelope);
      expect(shop.seen.map((s) => s.handler)).toEqual(['Mailer', 'Auditor', 'Mailer']);
    });

    it('says skipped when the named handler does not handle the type', async () => {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      const placed = await rowOf('Shop.OrderPlaced.v1');
      expect(await shop.domain.handleMessage(placed.envelope, { handler: shop.OrderCommands })).toBe('skipped');
      expect(shop.seen).toHaveLength(0);
    });

    it('passes a handler failure on to the subscription, with the unit rolled back', async () => {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      shop.failingHandler.fail = true;
      const placed = await rowOf('Shop.OrderPlaced.v1');
      await expect(shop.domain.handleMessage(placed.envelope, { handler: shop.Auditor })).rejects.toThrow('auditor is down');
    });

    it('refuses altered envelopes and unknown types', async () => {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
      const placed = await rowOf('Shop.OrderPlaced.v1');
      const altered = structuredClone(placed.envelope);
      altered.data.customer = 'Mallory';
      await expect(shop.domain.handleMessage(altered)).rejects.toThrow(ChecksumMismatchError);
      const other = makeShop('Other');
      const foreign = other.Order.create({ customer: 'x', status: 'PENDING', lines: [other.OrderLine.create({ sku: 'A', quantity: 1 })] });
      const event = foreign.raise(other.CustomerChanged.create({ orderId: foreign.id, customer: 'x' }));
      await expect(shop.domain.handleMessage(serializeMessage(event))).rejects.toThrow(UnknownMessageTypeError);
    });

    it('throws HandlerNotFoundError for a delivered command nobody handles', async () => {
      await shop.domain.process(shop.Unhandled.create({ note: 'x' }), { asynchronous: true });
      const row = await rowOf('Shop.Unhandled.v1');
      await expect(shop.domain.handleMessage(row.envelope)).rejects.toThrow(HandlerNotFoundError);
    });
  });
});
