/**
 * A projection rebuilt from a large event store, in batches, with progress: every account's
 * summary matches the events seeded through the store, and the progress reports one batch each.
 * Written once; the fast tier runs it at 5,000 events, the load tier at 50,000
 * (REBUILD_ACCOUNTS × 100 events: 50 fast, 500 load).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureLogging, rebuildProjection, serializeMessage, type BaseEvent, type NewEvent, type RebuildProgress } from '@protean-ts/core';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { projectionLedger } from '../../../core/test/support/projection-ledger.js';
import type { PostgresProvider } from '../../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from '../support/temp-database.js';

export type Tier = 'fast' | 'load';

const EVENTS_PER_ACCOUNT = 100;
const BATCH = 1000;

/** REBUILD_ACCOUNTS when set (in either tier), else 50 accounts in the fast tier and 500 in the load tier. */
export function rebuildAccounts(tier: Tier): number {
  const raw = process.env.REBUILD_ACCOUNTS;
  if (raw === undefined || raw === '') return tier === 'fast' ? 50 : 500;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 10 || value % 10 !== 0)
    throw new Error(`REBUILD_ACCOUNTS must be a multiple of 10 (>= 10), got ${JSON.stringify(raw)}`);
  return value;
}

const recordOf = (event: BaseEvent): NewEvent => {
  const envelope = serializeMessage(event);
  return {
    messageId: envelope.metadata.headers.id,
    type: envelope.metadata.headers.type,
    data: envelope.data,
    metadata: envelope.metadata as unknown as Record<string, unknown>,
  };
};

export async function describeRebuildAtScale(tier: Tier): Promise<void> {
  const accounts = rebuildAccounts(tier);
  const events = accounts * EVENTS_PER_ACCOUNT;
  const up = await servicesUp(POSTGRES);

  describe.skipIf(!up)(`a projection rebuilt from ${events.toLocaleString('en')} events on PostgreSQL`, () => {
    let db: TempDatabase;
    const { domain, Account } = projectionLedger({ eventSourced: true, projector: { subscriptionType: 'event_store' } });
    const provider = () => domain.providers.get('default') as PostgresProvider;
    const rows = <R extends Record<string, unknown>>(sql: string) => queryDatabase<R>(db.uri, sql, []);
    let restoreLogging: ReturnType<typeof configureLogging>;

    beforeAll(async () => {
      restoreLogging = configureLogging({ sink: () => {} });
      db = await createTempDatabase('projection_rebuild');
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

    it('rebuilds it in batches, with progress', async () => {
      const expected = new Map<string, number>();
      for (let first = 0; first < accounts; first += 10) {
        const tx = await provider().begin();
        for (let n = first; n < first + 10; n++) {
          const account = Account.open(`owner-${n}`);
          for (let d = 1; d < EVENTS_PER_ACCOUNT; d++) account.deposit(d % 7);
          expected.set(account.id, account.balance ?? 0);
          await provider().eventStore.append(tx, `ledger::account-${account.id}`, account.pendingEvents().map(recordOf), { expectedVersion: -1 });
        }
        await tx.commit();
      }
      const progress: RebuildProgress[] = [];
      const summary = await rebuildProjection(domain, 'AccountSummary', { batchSize: BATCH, onProgress: (p) => progress.push(p) });
      expect([summary.read, summary.applied, summary.skipped]).toEqual([events, events, 0]);
      const batches = Math.ceil(events / BATCH);
      expect(progress).toHaveLength(batches);
      expect(progress.map((p) => p.applied)).toEqual(Array.from({ length: batches }, (_, i) => Math.min((i + 1) * BATCH, events)));
      const stored = await rows<{ account_id: string; balance: number; movements: number }>('SELECT account_id, balance, movements FROM account_summary');
      expect(stored).toHaveLength(accounts);
      for (const row of stored)
        expect([row.account_id, Number(row.balance), Number(row.movements)]).toEqual([row.account_id, expected.get(row.account_id), EVENTS_PER_ACCOUNT - 1]);
      expect(await provider().projections.state('AccountSummary')).toMatchObject({ rebuilding: false, eventsApplied: events });
      console.info(`rebuild of ${events} events on PostgreSQL: ${summary.seconds.toFixed(1)} s (${Math.round(events / summary.seconds)} events/s)`);
    }, 600_000);
  });
}
