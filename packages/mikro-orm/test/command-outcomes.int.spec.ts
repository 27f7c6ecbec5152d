/**
 * Command outcomes and idempotency keys on PostgreSQL: concurrent commands with one key run
 * once (the unique index makes the second wait and then find the first), a refusal is kept for
 * the key, a queued command's outcome is recorded in its handler's transaction and awaited, and
 * cleanup removes old records.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { CommandRefusedError, OutcomeTimeoutError, type MessageEnvelope } from '@protean-ts/core';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';
import { handlerRuns, SellSoldOut, SellTicket, Ticket, ticketDomain as domain } from './support/ticket-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('command outcomes on PostgreSQL', () => {
  let db: TempDatabase;
  const rows = (sql: string) => queryDatabase<Record<string, unknown>>(db.uri, sql);
  const queued = async (): Promise<MessageEnvelope[]> => (await domain.providers.get('default')!.outbox.list({ limit: 1000 })).map((row) => row.envelope);

  beforeAll(async () => {
    db = await createTempDatabase();
    await domain.init({ config: { databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 8 } } } });
    const report = await domain.providers.get('default')!.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    expect(report.created).toContain('protean_command_outcomes');
  });
  afterAll(async () => {
    await domain.close();
    await db?.drop();
  });
  beforeEach(async () => {
    await domain.providers.get('default')!.truncate(domain.runtime.infrastructure.aggregateSchemas());
    handlerRuns.sell = 0;
    handlerRuns.refuse = 0;
  });

  it('runs two concurrent synchronous commands with one idempotency key once, both getting its result', async () => {
    const [first, second] = await Promise.all([
      domain.process(SellTicket.create({ buyer: 'ann' }), { idempotencyKey: 'order-1' }),
      domain.process(SellTicket.create({ buyer: 'ann' }), { idempotencyKey: 'order-1' }),
    ]);
    expect(handlerRuns.sell).toBe(1);
    expect(second).toEqual(first);
    expect(await domain.repositoryFor(Ticket).count()).toBe(1);
    const [record] = await rows(`SELECT status, idempotency_key, result FROM protean_command_outcomes`);
    expect(record).toEqual({ status: 'succeeded', idempotency_key: 'order-1', result: first });
  });

  it('queues one of two concurrent asynchronous commands with one key, giving both its message id', async () => {
    const ids = await Promise.all(
      Array.from({ length: 5 }, () => domain.process<string>(SellTicket.create({ buyer: 'bo' }), { asynchronous: true, idempotencyKey: 'cart-9' })),
    );
    expect(new Set(ids).size).toBe(1);
    const commands = await queued();
    expect(commands.map((envelope) => envelope.metadata.headers.id)).toEqual([ids[0]]);
  });

  it("gives a repeat in the same unit of work the first one's result", async () => {
    const [first, second] = await domain.uow(async () => [
      await domain.process(SellTicket.create({ buyer: 'hu' }), { idempotencyKey: 'same-unit' }),
      await domain.process(SellTicket.create({ buyer: 'hu' }), { idempotencyKey: 'same-unit' }),
    ]);
    expect(second).toEqual(first);
    expect(handlerRuns.sell).toBe(1);
  });

  it("keeps a refusal for its key: the second command rejects with the first one's error, without running", async () => {
    await expect(domain.process(SellSoldOut.create({ buyer: 'cy' }), { idempotencyKey: 'late' })).rejects.toThrow('no tickets left for cy');
    const again = domain.process(SellSoldOut.create({ buyer: 'cy' }), { idempotencyKey: 'late' });
    await expect(again).rejects.toBeInstanceOf(CommandRefusedError);
    await expect(again).rejects.toMatchObject({ errorName: 'SoldOut', errorMessage: 'no tickets left for cy' });
    expect(handlerRuns.refuse).toBe(1);
  });

  it("records a queued command's result in its handler's transaction, and the waiting sender gets it", async () => {
    const outcome = domain.process<{ ticketId: string }>(SellTicket.create({ buyer: 'di' }), { asynchronous: true, awaitOutcome: { timeoutMs: 20_000 } });
    const [envelope] = await waitFor(queued, (list) => list.length === 1);
    await domain.handleMessage(envelope!);
    const { ticketId } = await outcome;
    expect((await domain.repositoryFor(Ticket).get(ticketId)).buyer).toBe('di');
  });

  it("rejects the waiting sender of a refused queued command with the handler's error class and message", async () => {
    const outcome = domain.process(SellSoldOut.create({ buyer: 'ed' }), { asynchronous: true, awaitOutcome: { timeoutMs: 20_000 } });
    const [envelope] = await waitFor(queued, (list) => list.length === 1);
    await expect(domain.handleMessage(envelope!)).rejects.toThrow('no tickets left for ed');
    await expect(outcome).rejects.toMatchObject({ name: 'CommandRefusedError', errorName: 'SoldOut', errorMessage: 'no tickets left for ed' });
  });

  it('times out with OutcomeTimeoutError when nobody handles the command', async () => {
    const outcome = domain.process(SellTicket.create({ buyer: 'fa' }), { asynchronous: true, awaitOutcome: { timeoutMs: 300 } });
    await expect(outcome).rejects.toBeInstanceOf(OutcomeTimeoutError);
    await expect(outcome).rejects.toThrow(/may still run/);
  });

  it('cleans up records older than the cut-off, key and all', async () => {
    await domain.process(SellTicket.create({ buyer: 'gu' }), { idempotencyKey: 'old' });
    const store = domain.providers.get('default')!.commandOutcomes;
    expect(await store.cleanup({ before: new Date(Date.now() - 60_000), batchSize: 100 })).toBe(0);
    expect(await store.cleanup({ before: new Date(Date.now() + 1_000), batchSize: 100 })).toBe(1);
    await domain.process(SellTicket.create({ buyer: 'gu' }), { idempotencyKey: 'old' });
    expect(handlerRuns.sell).toBe(2);
  });

  it('refuses a malformed key or timeout by name', async () => {
    await expect(domain.process(SellTicket.create({ buyer: 'x' }), { idempotencyKey: '' })).rejects.toThrow(/idempotencyKey must be a non-empty string/);
    await expect(domain.process(SellTicket.create({ buyer: 'x' }), { asynchronous: true, awaitOutcome: { timeoutMs: -1 } })).rejects.toThrow(
      /awaitOutcome must be \{ timeoutMs \}/,
    );
  });
});

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
