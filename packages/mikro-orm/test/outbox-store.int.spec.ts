/**
 * The PostgreSQL outbox store against a real server: the shared OutboxStore conformance suite,
 * then what only this store promises (table set-up, schema qualification, round-robin claims,
 * clear errors on bad input).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionStateError, type NewOutboxRow } from '@protean-ts/core';
import { describeOutboxStoreConformance, POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import { InvalidOutboxIdError, InvalidOutboxRequestError, PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL outbox store', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('outbox_store');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 8 });
    await provider.connect();
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  describeOutboxStoreConformance('postgresql', { open: async () => provider });

  async function append(...rows: NewOutboxRow[]): Promise<void> {
    const tx = await provider.begin();
    await provider.outbox.append(tx, rows);
    await tx.commit();
  }

  describe('set-up', () => {
    it('creates the table and its indexes once, then reports it as existing', async () => {
      expect(await provider.setupOutbox()).toEqual({
        created: [],
        existing: [
          'protean_outbox',
          'protean_outbox_positions',
          'protean_inbox_checkpoints',
          'protean_inbox_passed',
          'protean_inbox_messages',
          'protean_command_outcomes',
          'protean_projections',
          'protean_partition_members',
          'protean_partition_leases',
          'protean_events',
          'protean_event_streams',
          'protean_snapshots',
          'protean_event_store_subscriptions',
          'protean_event_store_dead_letters',
        ],
      });
      const indexes = await queryDatabase<{ indexname: string }>(db.uri, "SELECT indexname FROM pg_indexes WHERE tablename = 'protean_outbox' ORDER BY 1");
      expect(indexes.map((i) => i.indexname)).toEqual([
        'protean_outbox_finished_idx',
        'protean_outbox_head_idx',
        'protean_outbox_message_broker_key',
        'protean_outbox_pkey',
        'protean_outbox_scheduled_idx',
        'protean_outbox_scheduled_key_idx',
      ]);
    });

    it('lives in the provider schema when one is configured', async () => {
      const scoped = new PostgresProvider('scoped', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2, schema: 'billing' });
      try {
        expect(await scoped.setupOutbox()).toEqual({
          created: [
            'protean_outbox',
            'protean_outbox_positions',
            'protean_inbox_checkpoints',
            'protean_inbox_passed',
            'protean_inbox_messages',
            'protean_command_outcomes',
            'protean_projections',
            'protean_partition_members',
            'protean_partition_leases',
            'protean_events',
            'protean_event_streams',
            'protean_snapshots',
            'protean_event_store_subscriptions',
            'protean_event_store_dead_letters',
          ],
          existing: [],
        });
        const rows = new RowFactory();
        const tx = await scoped.begin();
        await scoped.outbox.append(tx, [rows.row('a', 1)]);
        await tx.commit();
        const [claimed] = await scoped.outbox.claimBatch({ workerId: 'w', targetBroker: rows.broker, limit: 5, lockMs: 1000 });
        expect(claimed?.partitionKey).toBe(rows.key('a'));
        const found = await queryDatabase<{ n: number }>(db.uri, 'SELECT count(*)::int AS n FROM billing.protean_outbox');
        expect(found[0]!.n).toBe(1);
        // The public table did not get the row.
        expect((await provider.outbox.list({ limit: 1000 })).some((r) => r.targetBroker === rows.broker)).toBe(false);
      } finally {
        await scoped.close();
      }
    });
  });

  describe('claim order', () => {
    it('walks partition keys round-robin: the next claim starts after the last key taken', async () => {
      const rows = new RowFactory();
      const keys = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}`);
      await append(...keys.flatMap((key) => [rows.row(key, 1), rows.row(key, 2)]));
      const claim = () => provider.outbox.claimBatch({ workerId: 'w', targetBroker: rows.broker, limit: 10, lockMs: 30000 });
      const first = await claim();
      await provider.outbox.markPublished(
        'w',
        first.map((r) => r.id),
      );
      const second = await claim();
      // The second rows of the first ten keys are heads now, yet keys 10..19 come first.
      expect(second.map((r) => r.partitionKey.slice(-3)).sort()).toEqual(keys.slice(10, 20));
      expect(second.every((r) => r.sequence === 1)).toBe(true);
    });

    it('a deep backlog on one key does not hold back the other keys', async () => {
      const rows = new RowFactory();
      await append(...Array.from({ length: 400 }, (_, i) => rows.row('hot', i + 1)));
      const others = Array.from({ length: 30 }, (_, i) => rows.row(`cold${i}`, 1));
      await append(...others);
      const published = new Set<string>();
      for (let round = 0; round < 4; round++) {
        const claimed = await provider.outbox.claimBatch({ workerId: 'w', targetBroker: rows.broker, limit: 10, lockMs: 30000 });
        expect(claimed.filter((r) => r.partitionKey === rows.key('hot'))).toHaveLength(
          claimed.length === 0 ? 0 : claimed.some((r) => r.partitionKey === rows.key('hot')) ? 1 : 0,
        );
        await provider.outbox.markPublished(
          'w',
          claimed.map((r) => r.id),
        );
        for (const row of claimed) published.add(row.messageId);
      }
      expect(others.every((row) => published.has(row.messageId))).toBe(true);
    });
  });

  describe('bad input', () => {
    it('refuses a transaction of another database, naming both', async () => {
      const other = new PostgresProvider('reporting', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 1 });
      const tx = await other.begin();
      try {
        await expect(provider.outbox.append(tx, [new RowFactory().row('a', 1)])).rejects.toThrow(TransactionStateError);
        await expect(provider.outbox.append(tx, [new RowFactory().row('a', 1)])).rejects.toThrow(/"default".*"reporting"/);
      } finally {
        await tx.rollback();
        await other.close();
      }
    });

    it('names the argument of a claim it cannot run', async () => {
      const claim = (overrides: object) => provider.outbox.claimBatch({ workerId: 'w', targetBroker: 'b', limit: 10, lockMs: 1000, ...overrides });
      await expect(claim({ limit: 0 })).rejects.toThrow(InvalidOutboxRequestError);
      await expect(claim({ limit: 0 })).rejects.toThrow(/limit must be a positive integer, got 0/);
      await expect(claim({ lockMs: -5 })).rejects.toThrow(/lockMs/);
      await expect(claim({ workerId: '' })).rejects.toThrow(/workerId/);
    });

    it('refuses ids that are not row ids instead of building SQL from them', async () => {
      await expect(provider.outbox.markPublished('w', ['1; DROP TABLE protean_outbox'])).rejects.toThrow(InvalidOutboxIdError);
      await expect(provider.outbox.release('w', ['abc'])).rejects.toThrow(/not an id/);
    });

    it('refuses a failure without a valid retry time', async () => {
      await expect(provider.outbox.markFailed('w', [{ id: '1', error: 'x', nextRetryAt: new Date('nope'), abandon: false }])).rejects.toThrow(
        /nextRetryAt must be a valid Date/,
      );
    });
  });
});
