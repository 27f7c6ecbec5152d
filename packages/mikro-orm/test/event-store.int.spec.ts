/** The PostgreSQL event store against a real server: the shared EventStore conformance suite, and its set-up. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryProvider, TransactionStateError } from '@protean-ts/core';
import { describeEventStoreConformance, POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL event store', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('event_store');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 12 });
    await provider.connect();
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  describeEventStoreConformance('postgresql', { open: async () => provider, propertyRuns: 30 });

  it('set-up creates the event store tables with the outbox, then reports them as existing', async () => {
    const again = await provider.setupOutbox();
    expect(again.created).toEqual([]);
    expect(again.existing).toEqual(expect.arrayContaining(['protean_events', 'protean_event_streams', 'protean_snapshots']));
  });

  it('an older transaction open anywhere on the server holds readers back until it ends; they then read on, skipping nothing', async () => {
    const category = `lag::c${randomUUID().slice(0, 8)}`;
    const elsewhere = new pg.Client({ connectionString: db.uri.replace(/\/[^/]+$/, '/postgres') });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      const tx = await provider.begin();
      await provider.eventStore.append(tx, `${category}-1`, [{ messageId: randomUUID(), type: 'Lag.Happened.v1', data: {} }]);
      await tx.commit();
      expect(await provider.eventStore.readStream(`${category}-1`)).toHaveLength(1);
      expect((await provider.eventStore.readCategory(category)).events).toEqual([]);
      await elsewhere.query('ROLLBACK');
      const deadline = Date.now() + 20_000;
      let events = (await provider.eventStore.readCategory(category)).events;
      while (events.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        events = (await provider.eventStore.readCategory(category)).events;
      }
      expect(events.map((e) => e.streamName)).toEqual([`${category}-1`]);
    } finally {
      await elsewhere.end();
    }
  });

  it("refuses a transaction that is not this provider's with TransactionStateError", async () => {
    const foreign = await new MemoryProvider('default').begin();
    const append = provider.eventStore.append(foreign, 'shop::order-1', [{ messageId: 'm-1', type: 'Shop.Happened.v1', data: {} }]);
    await expect(append).rejects.toThrow(TransactionStateError);
    await expect(append).rejects.toThrow(/so the events commit with the unit of work/);
  });

  it('truncate empties the event store tables and restarts global positions', async () => {
    await provider.truncate([]);
    const tx = await provider.begin();
    await provider.eventStore.append(tx, 'trunc::thing-1', [{ messageId: randomUUID(), type: 'Trunc.Happened.v1', data: {} }]);
    await tx.commit();
    const [event] = await provider.eventStore.readStream('trunc::thing-1');
    expect(event!.globalPosition).toBe(1);
    expect(await provider.eventStore.streamVersion('trunc::thing-1')).toBe(0);
  });

  it('category reads use the category index in reader order', async () => {
    const plan = await queryDatabase<{ 'QUERY PLAN': string }>(
      db.uri,
      `EXPLAIN SELECT * FROM protean_events WHERE category = 'a::b' AND (transaction_id, global_position) > ('0'::xid8, 0::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY transaction_id, global_position LIMIT 100`,
    );
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/protean_events_category_idx/);
  });
});
