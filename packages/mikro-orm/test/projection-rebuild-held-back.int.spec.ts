/**
 * A projection rebuild on PostgreSQL while a transaction is open elsewhere on the server: readers
 * take only events of transactions older than the server's oldest open one (xids are cluster-wide,
 * so one in another database counts), so the rebuild waits for the events held back and replays
 * them all once that transaction ends, instead of stopping at the first empty read.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { configureLogging, rebuildProjection, type RebuildProgress } from '@protean-ts/core';
import { createTemporaryDatabase, servicesUp, POSTGRES, type TemporaryDatabase } from '@protean-ts/conformance';
import { projectionLedger } from '../../core/test/support/projection-ledger.js';
import type { PostgresProvider } from '../src/index.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('a projection rebuild while a transaction is open on the server', () => {
  let db: TemporaryDatabase;
  let elsewhere: TemporaryDatabase;
  const { domain, Account, AccountSummary } = projectionLedger({ eventSourced: true, projector: { subscriptionType: 'event_store' } });
  const provider = () => domain.providers.get('default') as PostgresProvider;
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTemporaryDatabase({ label: 'rebuild_held' });
    elsewhere = await createTemporaryDatabase({ label: 'rebuild_elsewhere' });
    await elsewhere.query('CREATE TABLE hold (x integer)');
    await domain.init({
      config: {
        event_processing: 'sync',
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
      },
    });
    await provider().setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  });
  afterAll(async () => {
    await domain.close();
    await db?.drop();
    await elsewhere?.drop();
    configureLogging(restoreLogging);
  });

  it('waits for the events a transaction in another database holds back, then replays every one of them', async () => {
    const ann = Account.open('Ann');
    ann.deposit(10);
    await domain.repositoryFor(Account).add(ann);

    // A transaction in another database of the server, holding an xid (it wrote), left open.
    const blocker = new pg.Client({ connectionString: elsewhere.uri });
    await blocker.connect();
    let blocking = false;
    try {
      await blocker.query('BEGIN');
      await blocker.query('INSERT INTO hold VALUES (1)');
      blocking = true;
      // Committed after it began: held back from readers until it ends.
      const bob = Account.open('Bob');
      bob.deposit(5);
      await domain.repositoryFor(Account).add(bob);

      const store = provider().eventStore;
      const reads = vi.spyOn(store, 'readCategories');
      const ends = vi.spyOn(store, 'committedEnd');
      const progress: RebuildProgress[] = [];
      let settled = false;
      const rebuild = rebuildProjection(domain, 'AccountSummary', { batchSize: 2, onProgress: (p) => progress.push(p) }).finally(() => (settled = true));
      try {
        // Ann's page, an empty read, the end asked for, and another empty read: the rebuild is waiting.
        // (Another test file's transaction on the same server can hold Ann's page back for a while too.)
        while (ends.mock.calls.length === 0 || reads.mock.calls.length < 3 || progress.length === 0) {
          if (settled) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(settled).toBe(false);
        expect(progress.map((p) => p.read)).toEqual([2]);

        await blocker.query('COMMIT');
        blocking = false;
        const summary = await rebuild;
        expect([summary.read, summary.applied, summary.skipped]).toEqual([4, 4, 0]);
        expect(progress.map((p) => p.read)).toEqual([2, 4]);
        expect(ends).toHaveBeenCalledTimes(1);
      } finally {
        reads.mockRestore();
        ends.mockRestore();
        if (blocking) await blocker.query('ROLLBACK');
        await rebuild.catch(() => {});
      }
      const view = domain.viewFor(AccountSummary);
      expect(await view.get(ann.id)).toMatchObject({ owner: 'Ann', balance: 10 });
      expect(await view.get(bob.id)).toMatchObject({ owner: 'Bob', balance: 5 });
      expect(await provider().projections.state('AccountSummary')).toMatchObject({ rebuilding: false });
    } finally {
      if (blocking) await blocker.query('ROLLBACK');
      await blocker.end();
    }
  });
});
