/**
 * Upcasters on PostgreSQL: the v1 bank (`makeBank`) writes a stream, then the bank whose Deposited
 * event is at v3 (`makeUpcastingBank`, with v1 → v2 → v3 upcasters) loads it from the same
 * database, and the rows in protean_events are unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBank, makeUpcastingBank, servicesUp, POSTGRES } from '@protean-ts/conformance';
import { configureLogging } from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('upcasters on PostgreSQL', () => {
  let db: TempDatabase;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const config = () => ({
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 2 } },
    brokers: { default: { provider: 'inline' } },
  });
  const rows = () => queryDatabase(db.uri, 'SELECT * FROM protean_events ORDER BY global_position');

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTempDatabase('upcast');
  });
  afterAll(async () => {
    await db?.drop();
    configureLogging(restoreLogging);
  });

  it('a stream written at Deposited v1 loads through v1 → v2 → v3 and its rows stay as written', async () => {
    const before = makeBank();
    await before.domain.init({ config: config() });
    await (before.domain.providers.get('default') as PostgresProvider).setupOutbox();
    const written = before.Account.open('Ann');
    written.deposit(10);
    written.deposit(5);
    await before.domain.repositoryFor(before.Account).add(written);
    await before.domain.close();
    const stored = await rows();
    expect(stored.map((row) => row.type)).toEqual(['Bank.Opened.v1', 'Bank.Deposited.v1', 'Bank.Deposited.v1']);

    const after = makeUpcastingBank();
    await after.domain.init({ config: config() });
    try {
      const repo = after.domain.repositoryFor(after.Account);
      const loaded = await repo.get(written.id);
      expect([loaded.balanceCents, loaded._version]).toEqual([1500, 2]);
      expect(await rows()).toEqual(stored);

      loaded.deposit(250);
      await repo.add(loaded);
      const now = await rows();
      expect(now.slice(0, 3)).toEqual(stored);
      expect(now[3]!.type).toBe('Bank.Deposited.v3');
      expect((await repo.get(written.id)).balanceCents).toBe(1750);
    } finally {
      await after.domain.close();
    }
  });
});
