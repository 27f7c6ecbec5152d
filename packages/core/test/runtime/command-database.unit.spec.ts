/**
 * The database of an asynchronous command follows its aggregate: the outbox row, the idempotency
 * claim and the outcome go to the aggregate's database (its `partOf`, else its command handler's
 * aggregate; an event-sourced aggregate's is the event store's), and only a command with no
 * aggregate uses "default" — an error naming the command when there is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseAggregate, BaseCommand, BaseCommandHandler, CommandDatabaseError, Domain, field, handle, type MessageEnvelope } from '../../src/index.js';
import { commandDatabase } from '../../src/processing/command-database.js';

const shop = new Domain('Placement');

@shop.aggregate({ provider: 'orders' })
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
}

@shop.aggregate({ eventSourced: true })
class Ledger extends BaseAggregate {
  @field.string() owner?: string;
}

@shop.command({ partOf: Order })
class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

/** No partOf: its handler's aggregate (Order) decides. */
@shop.command({ streamCategory: 'placement::order' })
class CancelOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

@shop.command({ partOf: Ledger })
class OpenLedger extends BaseCommand {
  @field.string() owner?: string;
}

/** Belongs to no aggregate, and neither does its handler. */
@shop.command({ streamCategory: 'placement::ping' })
class Ping extends BaseCommand {
  @field.string() note?: string;
}

@shop.commandHandler({ partOf: Order })
export class Orders extends BaseCommandHandler {
  @handle(PlaceOrder) async place(command: PlaceOrder): Promise<{ orderId: string }> {
    const order = Order.create({ customer: command.customer });
    await shop.repositoryFor(Order).add(order);
    return { orderId: order.id };
  }

  @handle(CancelOrder) async cancel(): Promise<void> {}
}

@shop.commandHandler({ partOf: Ledger })
export class Ledgers extends BaseCommandHandler {
  @handle(OpenLedger) async open(): Promise<void> {}
}

@shop.commandHandler({ streamCategory: 'placement::ping' })
export class Pings extends BaseCommandHandler {
  @handle(Ping) async ping(): Promise<void> {}
}

const queuedIn = async (database: string): Promise<MessageEnvelope[]> =>
  (await shop.providers.get(database)!.outbox.list({ limit: 100 })).map((row) => row.envelope);

describe('the database of an asynchronous command', () => {
  beforeAll(() =>
    shop.init({
      config: {
        databases: { default: { provider: 'memory' }, orders: { provider: 'memory' }, events: { provider: 'memory' } },
        event_store: { database: 'events' },
      },
    }),
  );
  afterAll(() => shop.close());

  it("is the database of the command's aggregate", () => {
    expect(shop.runtime.commands.database(PlaceOrder)).toBe('orders');
    expect(shop.runtime.commands.database(shop.registry.messageTypeOf(PlaceOrder))).toBe('orders');
  });

  it("is the database of its command handler's aggregate when the command names none", () => {
    expect(shop.runtime.commands.database(CancelOrder)).toBe('orders');
  });

  it("is the event store's database for an event-sourced aggregate", () => {
    expect(shop.runtime.commands.database(OpenLedger)).toBe('events');
  });

  it('is "default" for a command of no aggregate, and for a type no command is registered under', () => {
    expect(shop.runtime.commands.database(Ping)).toBe('default');
    expect(shop.runtime.commands.database('Placement.Unknown.v1')).toBe('default');
    expect(shop.runtime.commands.databases().sort()).toEqual(['default', 'events', 'orders']);
  });

  it("queues the command and records its outcome in its aggregate's database only", async () => {
    const outcome = shop.process<{ orderId: string }>(PlaceOrder.create({ customer: 'ann' }), {
      asynchronous: true,
      awaitOutcome: { timeoutMs: 10_000 },
      idempotencyKey: 'order-ann',
    });
    let envelope: MessageEnvelope | undefined;
    while (!envelope) {
      envelope = (await queuedIn('orders'))[0];
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await queuedIn('default')).toEqual([]);
    const id = envelope.metadata.headers.id;
    expect(await shop.providers.get('orders')!.commandOutcomes.get(id)).toMatchObject({ status: 'pending', idempotencyKey: 'order-ann' });
    await shop.handleMessage(envelope);
    const { orderId } = await outcome;
    expect((await shop.repositoryFor(Order).get(orderId)).customer).toBe('ann');
    expect(await shop.providers.get('orders')!.commandOutcomes.get(id)).toMatchObject({ status: 'succeeded' });
    expect(await shop.providers.get('default')!.commandOutcomes.get(id)).toBeNull();
  });

  it("claims the idempotency key of a synchronous command in its aggregate's database", async () => {
    const first = await shop.process<{ orderId: string }>(PlaceOrder.create({ customer: 'bo' }), { idempotencyKey: 'order-bo' });
    const again = await shop.process<{ orderId: string }>(PlaceOrder.create({ customer: 'bo' }), { idempotencyKey: 'order-bo' });
    expect(again).toEqual(first);
    expect(await shop.repositoryFor(Order).count({ customer: 'bo' })).toBe(1);
  });

  it('records a given-up command as refused in its database', async () => {
    const outcome = shop.process(PlaceOrder.create({ customer: 'cy' }), { asynchronous: true, awaitOutcome: { timeoutMs: 10_000 } });
    let envelope: MessageEnvelope | undefined;
    while (!envelope) {
      envelope = (await queuedIn('orders')).find((e) => e.data.customer === 'cy');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await shop.runtime.commands.recordGivenUp(envelope, new Error('retries spent'));
    await expect(outcome).rejects.toMatchObject({ name: 'CommandRefusedError', errorMessage: 'retries spent' });
  });
});

describe('a command of no aggregate without a "default" database', () => {
  it('is an error naming the command and the fix', () => {
    const where = () => commandDatabase(shop.registry, Ping, { eventStoreDatabase: 'events', databases: ['orders', 'events'] });
    expect(where).toThrow(CommandDatabaseError);
    expect(where).toThrow(
      /^Ping belongs to no aggregate .* "default" database, which is not configured: give Ping partOf: <an aggregate> .* or add a \[databases\.default\] table$/,
    );
    // A command with an aggregate needs no "default".
    expect(commandDatabase(shop.registry, PlaceOrder, { eventStoreDatabase: 'events', databases: ['orders', 'events'] })).toBe('orders');
  });
});
