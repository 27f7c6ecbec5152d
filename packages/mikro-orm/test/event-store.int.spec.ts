/** The PostgreSQL event store against a real server: the shared EventStore conformance suite, and its set-up. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEventStoreConformance, POSTGRES, servicesUp } from '@protean-ts/core/testing';
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

  it('category reads use the category index in reader order', async () => {
    const plan = await queryDatabase<{ 'QUERY PLAN': string }>(
      db.uri,
      `EXPLAIN SELECT * FROM protean_events WHERE category = 'a::b' AND (transaction_id, global_position) > ('0'::xid8, 0::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY transaction_id, global_position LIMIT 100`,
    );
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/protean_events_category_idx/);
  });
});
