/**
 * A transaction's connection answers one statement at a time: a handler's `Promise.all` of finds
 * and a ROLLBACK after a backend was terminated mid-way must never make node-postgres queue a
 * statement behind a running one (its "Calling client.query() when the client is already
 * executing a query" DeprecationWarning, a raw stderr line in the server's JSON log).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import type { PostgresProvider } from '../src/index.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { SERVER_URI } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('statements of one transaction take turns on its connection', () => {
  const fixture = new ProviderFixture({ pool_size: 2 });
  let provider: PostgresProvider;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    provider = await fixture.start();
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await fixture.stop();
  });
  afterEach(() => {
    // util.deprecate warns once per process: any warning at all means the driver queued a statement.
    expect(warnings.splice(0).map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });

  it('answers a Promise.all of statements on one transaction, each with its own result, in order', async () => {
    const tx = await provider.begin();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => tx.execute<{ n: number }>('SELECT ?::int AS n, pg_sleep(0.01)', [i])));
    expect(results.map((r) => r.rows[0]!.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await tx.commit();
  });

  it('rolls back only after the statements in flight have settled when the backend is terminated under them', async () => {
    // knex's warning about the dead pooled connection goes to the framework logger, not the console.
    const consoleLog = vi.spyOn(console, 'log');
    const tx = await provider.begin();
    const [{ pid }] = (await tx.execute<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
    const running = Promise.allSettled(Array.from({ length: 4 }, () => tx.execute('SELECT pg_sleep(0.3)')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const admin = new pg.Client({ connectionString: `${SERVER_URI}/postgres` });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    const outcomes = await running;
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    await tx.rollback();
    // The pool hands out a working connection afterwards.
    expect((await provider.execute<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(consoleLog).not.toHaveBeenCalled();
    consoleLog.mockRestore();
  });

  it('commits only after every statement handed in before it has run, and refuses when one of them failed', async () => {
    const table = provider.qualify('turns_notes');
    await provider.execute(`CREATE TABLE IF NOT EXISTS ${table} (id int PRIMARY KEY)`);
    const tx = await provider.begin();
    const inserts = [tx.execute(`INSERT INTO ${table} VALUES (1)`), tx.execute(`INSERT INTO ${table} VALUES (1)`)];
    // COMMIT is asked for while both inserts are still queued: the duplicate key must still stop it.
    const commit = tx.commit();
    await expect(Promise.all(inserts)).rejects.toThrow(/duplicate key/);
    await expect(commit).rejects.toThrow(/Cannot commit: a statement in the transaction of database "default" failed/);
    expect((await provider.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n).toBe(0);
  });
});
