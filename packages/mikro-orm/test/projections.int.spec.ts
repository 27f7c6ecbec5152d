/**
 * Projections on PostgreSQL: `db setup` tables (the projection's and protean_projections), reads
 * through domain.viewFor, projectors after commit, the rebuild barrier (a mark waits for a
 * projector transaction in flight), and a rebuild that reads only its projectors' categories (a
 * rebuild of many events seeded through the store: scenarios/projection-rebuild-at-scale.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  configureLogging,
  rebuildProjection,
  serializeMessage,
  START_CURSOR,
  type BaseEvent,
  type NewEvent,
  type RebuildProgress,
  type RebuildSummary,
} from '@protean-ts/core';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { projectionLedger } from '../../core/test/support/projection-ledger.js';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

const recordOf = (event: BaseEvent): NewEvent => {
  const envelope = serializeMessage(event);
  return {
    messageId: envelope.metadata.headers.id,
    type: envelope.metadata.headers.type,
    data: envelope.data,
    metadata: envelope.metadata as unknown as Record<string, unknown>,
  };
};

describe.skipIf(!up)('projections on PostgreSQL', () => {
  let db: TempDatabase;
  const ledger = projectionLedger({ eventSourced: true, projector: { subscriptionType: 'event_store' } });
  const { domain, Account, AccountSummary, AccountSummaryProjector, Transfer } = ledger;
  const provider = () => domain.providers.get('default') as PostgresProvider;
  const rows = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) => queryDatabase<R>(db.uri, sql, params);
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTempDatabase('projections');
    await domain.init({
      config: {
        event_processing: 'sync',
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
        brokers: { default: { provider: 'inline' } },
      },
    });
    await provider().setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  });
  afterAll(async () => {
    await domain.close();
    await db?.drop();
    configureLogging(restoreLogging);
  });

  it('db setup creates the projection table and protean_projections; the projector writes it after commit; viewFor reads it', async () => {
    const tables = await rows<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('account_summary', 'protean_projections')",
    );
    expect(tables.map((t) => t.table_name).sort()).toEqual(['account_summary', 'protean_projections']);
    const account = Account.open('Ann');
    account.deposit(4);
    await domain.repositoryFor(Account).add(account);
    const view = domain.viewFor(AccountSummary);
    expect(await view.get(account.id)).toMatchObject({ owner: 'Ann', balance: 4, movements: 1 });
    expect(await view.exists(account.id)).toBe(true);
    expect(await view.count({ owner: 'Ann' })).toBe(1);
    expect((await view.query({ filter: { balance: { $gte: 4 } } })).map((s) => s.accountId)).toContain(account.id);
  });

  it('a rebuild mark waits for a projector transaction in flight, and a projector that starts after it is refused', async () => {
    const status = provider().projections;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const isHolding = new Promise<void>((resolve) => (holding = resolve));
    const projectorUnit = domain.runtime.units.fresh(async () => {
      await domain.runtime.projections.enterBarrier(AccountSummaryProjector);
      holding();
      await held;
    });
    await isHolding;
    let marked = false;
    const marking = status.markRebuilding('AccountSummary').then(() => (marked = true));
    // The mark's statement is queued behind the projector's share lock.
    for (;;) {
      const waiting = await rows("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%protean_projections%'");
      if (waiting.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(marked).toBe(false);
    release();
    await projectorUnit;
    await marking;
    expect(marked).toBe(true);
    await expect(domain.runtime.units.fresh(() => domain.runtime.projections.enterBarrier(AccountSummaryProjector))).rejects.toThrow(
      'AccountSummary is being rebuilt, so AccountSummaryProjector waits',
    );
    await status.markRebuilt('AccountSummary', 0, START_CURSOR);
  });

  it("a rebuild reads only the categories its projectors follow, in reader order: a process manager's and another aggregate's events are neither read nor counted", async () => {
    await rows('TRUNCATE protean_events, protean_event_streams, account_summary');
    const other = async (stream: string, type: string, count: number) => {
      const tx = await provider().begin();
      await provider().eventStore.append(
        tx,
        stream,
        Array.from({ length: count }, () => ({ messageId: randomUUID(), type, data: {} })),
      );
      await tx.commit();
    };
    await other('ledger::account_opening-1', 'Ledger.AccountOpening.Transitioned.v1', 5);
    const ann = Account.open('Ann');
    ann.deposit(10);
    await domain.repositoryFor(Account).add(ann);
    await other('ledger::account_opening-2', 'Ledger.AccountOpening.Transitioned.v1', 6);
    // One transaction writing both followed categories and a third: the rebuild keeps its order.
    const tx = await provider().begin();
    await provider().eventStore.append(tx, `ledger::transfer-${randomUUID()}`, [recordOf(Transfer.send(ann.id, 3).pendingEvents()[0]!)]);
    await provider().eventStore.append(tx, 'ledger::audit-1', [{ messageId: randomUUID(), type: 'Ledger.Audited.v1', data: {} }]);
    const later = await domain.repositoryFor(Account).get(ann.id);
    later.deposit(1);
    await provider().eventStore.append(tx, `ledger::account-${ann.id}`, later.pendingEvents().map(recordOf), { expectedVersion: 1 });
    await tx.commit();
    await other('ledger::audit-1', 'Ledger.Audited.v1', 8);

    const spies = (['opened', 'deposited', 'sent'] as const).map((method) => ({ method, spy: vi.spyOn(AccountSummaryProjector.prototype, method) }));
    const progress: RebuildProgress[] = [];
    let summary: RebuildSummary;
    let applied: string[];
    try {
      summary = await rebuildProjection(domain, 'AccountSummary', { batchSize: 2, onProgress: (p) => progress.push(p) });
      applied = spies
        .flatMap(({ method, spy }) => spy.mock.invocationCallOrder.map((order) => ({ method, order })))
        .sort((a, b) => a.order - b.order)
        .map((call) => call.method);
    } finally {
      for (const { spy } of spies) spy.mockRestore();
    }
    expect([summary.read, summary.applied, summary.skipped]).toEqual([4, 4, 0]);
    // Reader order across the two categories: the transfer came before the second deposit in its transaction.
    expect(applied).toEqual(['opened', 'deposited', 'sent', 'deposited']);
    expect(progress.map((p) => p.read)).toEqual([2, 4]);
    const [followed] = await rows<{ last: string }>(
      "SELECT max(global_position)::text AS last FROM protean_events WHERE category IN ('ledger::account', 'ledger::transfer')",
    );
    expect(summary.position).toBe(Number(followed!.last));
    expect(await domain.viewFor(AccountSummary).get(ann.id)).toMatchObject({ balance: 8, movements: 3 });
  });
});

describe.skipIf(!up)('projections on a PostgreSQL database set up before projections existed', () => {
  it('a projector refuses with the way to create protean_projections', async () => {
    const db = await createTempDatabase('projections_old');
    const { domain, AccountSummaryProjector } = projectionLedger({ name: 'OldLedger' });
    try {
      await domain.init({
        config: {
          event_processing: 'sync',
          databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 2 } },
          brokers: { default: { provider: 'inline' } },
        },
      });
      await (domain.providers.get('default') as PostgresProvider).setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
      await queryDatabase(db.uri, 'DROP TABLE protean_projections');
      await expect(domain.runtime.units.fresh(() => domain.runtime.projections.enterBarrier(AccountSummaryProjector))).rejects.toThrow(
        'table protean_projections is missing in PostgreSQL database "default"; run protean-ts db setup (or db setup-outbox) to create it',
      );
    } finally {
      await domain.close();
      await db.drop();
    }
  });
});
