/**
 * isolatedInfrastructure on the real PostgreSQL and Redis: a schema and a stream prefix of the
 * test's own, the whole flow through them, and nothing left behind after cleanUp.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { captureEvents, drain, given, isolatedInfrastructure, stopHandlers, type IsolatedInfrastructure } from '../src/index.js';
import { Account, bank, Deposited, Opened, StatementLine, Withdraw, Withdrawn } from './support/bank.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('isolated infrastructure on PostgreSQL and Redis', () => {
  let infra: IsolatedInfrastructure | undefined;
  afterAll(async () => {
    await stopHandlers(bank).catch(() => undefined);
    await infra?.cleanUp();
  });

  it('runs the flow in a schema and stream prefix of its own, and removes both', async () => {
    infra = await isolatedInfrastructure({ label: 'kit' });
    await bank.init({ config: { ...infra.config, event_processing: 'async', command_processing: 'async' } });
    await infra.setUp(bank);

    await given(Account, [Opened.create({ accountId: 'p1', owner: 'ann' }), Deposited.create({ accountId: 'p1', amount: 9 })])
      .in(bank)
      .when((a) => a.deposit(1))
      .then([Deposited]);
    const captured = captureEvents(bank);
    await bank.process(Withdraw.create({ accountId: 'p1', amount: 3 }));
    await drain(bank);
    captured.assert([Withdrawn.create({ accountId: 'p1', amount: 3 })]);
    expect((await bank.repositoryFor(StatementLine).query({ filter: { accountId: 'p1' } })).map((l) => l.amount)).toEqual([-3]);

    const tables = await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [infra.schema]);
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['statement_line', 'protean_outbox', 'protean_events', 'protean_command_outcomes']));
    expect((await redisKeys(infra.streamPrefix!)).length).toBeGreaterThan(0);

    await stopHandlers(bank);
    await infra.cleanUp();
    expect(await sql(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [infra.schema])).toEqual([]);
    expect(await redisKeys(infra.streamPrefix!)).toEqual([]);
    infra = undefined;
  }, 60_000);
});

async function sql(text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function redisKeys(prefix: string): Promise<string[]> {
  const client = new Redis('redis://127.0.0.1:6379');
  try {
    return await client.keys(`${prefix}*`);
  } finally {
    client.disconnect();
  }
}
