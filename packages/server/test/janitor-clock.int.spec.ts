/**
 * The retention janitors read the domain's clock, on the real PostgreSQL: a command outcome
 * recorded now is kept while the clock stays within `retention_hours`, and removed once the
 * clock is moved past it, without any real wait. (The users' `ManualClock` is in
 * @protean-ts/testing, which depends on this package; a clock is just `{ now() }`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLogger } from '@protean-ts/core';
import { createTemporaryDatabase, type TemporaryDatabase } from '@protean-ts/core/temporary-database';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { CommandOutcomeJanitor } from '../src/engine/command-outcome-janitor.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('CommandOutcomeJanitor on a moved clock, on PostgreSQL', () => {
  let db: TemporaryDatabase;
  let provider: PostgresProvider;
  beforeAll(async () => {
    db = await createTemporaryDatabase();
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await provider.connect();
    await provider.setupSchema([], { outbox: true });
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  it('removes an outcome once the clock has moved past retention_hours, not before', async () => {
    const tx = await provider.begin();
    await provider.commandOutcomes.claim(tx, { commandId: 'c-1', commandType: 'T.C.v1', idempotencyKey: 'key-1' });
    await tx.commit();
    let now = Date.now();
    const clock = { now: () => now };
    const janitor = new CommandOutcomeJanitor(provider.commandOutcomes, 'default', 24, getLogger('test'), clock);

    now += 23 * 3_600_000;
    expect(await janitor.run()).toBe(0);
    expect((await provider.commandOutcomes.get('c-1'))?.status).toBe('pending');

    now += 2 * 3_600_000;
    expect(await janitor.run()).toBe(1);
    expect(await provider.commandOutcomes.get('c-1')).toBeNull();
  }, 60_000);
});
