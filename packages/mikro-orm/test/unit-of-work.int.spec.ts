/**
 * The unit of work on PostgreSQL, through the public API (`domain.uow`, repositories): one
 * transaction per database, all committed or all rolled back, compare-and-set versions under
 * real concurrency, and the open transaction usable for one's own SQL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { ExpectedVersionError, currentUnitOfWork } from '@protean-ts/core';
import { PostgresProvider, sqlTransactionOf } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';
import { DailyReport, Sale, SaleLine, multi } from './support/multi-database-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL unit of work', () => {
  let main: TempDatabase;
  let reporting: TempDatabase;
  const sales = () => multi.repositoryFor(Sale);
  const reports = () => multi.repositoryFor(DailyReport);
  const count = async (db: TempDatabase, table: string) => (await queryDatabase<{ n: number }>(db.uri, `SELECT count(*)::int AS n FROM "${table}"`))[0]!.n;

  beforeAll(async () => {
    [main, reporting] = await Promise.all([createTempDatabase(), createTempDatabase()]);
    await multi.init({
      config: {
        enable_outbox: false,
        databases: {
          default: { provider: 'postgresql', database_uri: main.uri, pool_size: 8 },
          reporting: { provider: 'postgresql', database_uri: reporting.uri, pool_size: 2 },
        },
      },
    });
    for (const [name, provider] of multi.providers) {
      await provider.setupSchema(
        multi.runtime.infrastructure.aggregateSchemas().filter((s) => s.provider === name),
        { outbox: true },
      );
    }
  });
  afterAll(async () => {
    await multi.close();
    await Promise.all([main?.drop(), reporting?.drop()]);
  });
  beforeEach(async () => {
    for (const [name, provider] of multi.providers) await provider.truncate(multi.runtime.infrastructure.aggregateSchemas().filter((s) => s.provider === name));
  });

  it('builds a postgresql provider for each named database', () => {
    expect([...multi.providers.keys()]).toEqual(['default', 'reporting']);
    for (const provider of multi.providers.values()) expect(provider).toBeInstanceOf(PostgresProvider);
  });

  it('commits aggregates of two databases in one unit of work', async () => {
    await multi.uow(async () => {
      await sales().add(Sale.create({ customer: 'Ann', lines: [SaleLine.create({ sku: 'A' })] }));
      await reports().add(DailyReport.create({ day: '2024-05-01', sales: 1 }));
    });
    expect([await count(main, 'sale'), await count(main, 'sale_line'), await count(reporting, 'daily_report')]).toEqual([1, 1, 1]);
  });

  it('rolls back both databases when the unit of work fails, leaving no row', async () => {
    const sale = Sale.create({ customer: 'Ann', lines: [SaleLine.create({ sku: 'A' })] });
    const failing = multi.uow(async () => {
      await sales().add(sale);
      await reports().add(DailyReport.create({ day: '2024-05-01' }));
      throw new Error('payment declined');
    });
    await expect(failing).rejects.toThrow('payment declined');
    expect([await count(main, 'sale'), await count(main, 'sale_line'), await count(reporting, 'daily_report')]).toEqual([0, 0, 0]);
    expect(sale._version).toBe(-1);
  });

  it('opens a transaction only on the databases the unit of work touches', async () => {
    await multi.uow(async () => {
      await sales().add(Sale.create({ customer: 'Ann' }));
      expect([...currentUnitOfWork()!.transactionsByProvider.keys()]).toEqual(['default']);
    });
  });

  it('lets one racing writer win and refuses the other with ExpectedVersionError', async () => {
    const sale = await sales().add(Sale.create({ customer: 'Ann', amount: 1 }));
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstSaved!: () => void;
    const firstHoldsRow = new Promise<void>((resolve) => (firstSaved = resolve));

    const first = multi.uow(async () => {
      const mine = await sales().get(sale.id);
      mine.amount = 2;
      await sales().add(mine);
      firstSaved();
      await firstMayCommit;
    });
    await firstHoldsRow;
    const second = multi.uow(async () => {
      const mine = await sales().get(sale.id);
      expect(mine._version).toBe(0);
      mine.amount = 3;
      await sales().add(mine);
    });
    // The second writer's UPDATE must really be waiting on the first one's row lock.
    await waitFor(
      async () =>
        (
          await queryDatabase<{ n: number }>(main.uri, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`, [
            main.name,
          ])
        )[0]!.n === 1,
    );
    releaseFirst();
    const [a, b] = await Promise.allSettled([first, second]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    expect((b as PromiseRejectedResult).reason).toBeInstanceOf(ExpectedVersionError);
    expect((b as PromiseRejectedResult).reason).toMatchObject({ expectedVersion: 0, actualVersion: 1 });
    const stored = await sales().get(sale.id);
    expect([stored.amount, stored._version]).toEqual([2, 1]);
  });

  it('lets exactly one of many concurrent writers of the same version win', async () => {
    const sale = await sales().add(Sale.create({ customer: 'Ann', amount: 0 }));
    const writers = 6;
    let loaded = 0;
    let allLoaded!: () => void;
    const barrier = new Promise<void>((resolve) => (allLoaded = resolve));
    const results = await Promise.allSettled(
      Array.from({ length: writers }, (_, i) =>
        multi.uow(async () => {
          const mine = await sales().get(sale.id);
          if (++loaded === writers) allLoaded();
          await barrier;
          mine.amount = i + 1;
          await sales().add(mine);
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(losers.every((r) => r.reason instanceof ExpectedVersionError)).toBe(true);
    expect((await sales().get(sale.id))._version).toBe(1);
  });

  it('lets exactly one of two concurrent inserts of the same identity win', async () => {
    const id = 'same-identity';
    const results = await Promise.allSettled([
      multi.uow(async () => void (await sales().add(Sale.create({ id, customer: 'A' })))),
      multi.uow(async () => void (await sales().add(Sale.create({ id, customer: 'B' })))),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(ExpectedVersionError);
    expect(await count(main, 'sale')).toBe(1);
  });

  it('runs one’s own SQL and MikroORM queries in the unit of work’s transaction', async () => {
    const attempt = multi.uow(async () => {
      const sale = await sales().add(Sale.create({ customer: 'Ann' }));
      const tx = sqlTransactionOf(currentUnitOfWork()!.transactionsByProvider.get('default')!);
      await tx.execute(`UPDATE ${tx.qualify('sale')} SET amount = ? WHERE id = ?`, [42, sale.id]);
      const em = await (tx as unknown as { entityManager(): Promise<{ execute(sql: string, p: unknown[]): Promise<{ amount: string }[]> }> }).entityManager();
      expect((await em.execute(`SELECT amount FROM ${tx.qualify('sale')} WHERE id = ?`, [sale.id]))[0]!.amount).toBe('42');
      throw new Error('undo');
    });
    await expect(attempt).rejects.toThrow('undo');
    expect(await count(main, 'sale')).toBe(0);

    let id = '';
    await multi.uow(async () => {
      const sale = await sales().add(Sale.create({ customer: 'Bo' }));
      id = sale.id;
      const tx = sqlTransactionOf(currentUnitOfWork()!.transactionsByProvider.get('default')!);
      const em = await (tx as unknown as { entityManager(): Promise<{ execute(sql: string, p: unknown[]): Promise<unknown> }> }).entityManager();
      await em.execute(`UPDATE ${tx.qualify('sale')} SET amount = ? WHERE id = ?`, [7, sale.id]);
    });
    expect((await sales().get(id)).amount).toBe(7);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
