/**
 * The claim must stay an index walk whatever the planner's statistics say: gathered on an empty
 * table before a burst, or with hundreds of thousands of published rows present. Checked with
 * EXPLAIN on the very statement the store runs (plans, not timings: timings belong in bench/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { claimBatchSql } from '../src/outbox/claim-batch.sql.js';
import { cleanupBatchSql } from '../src/outbox/maintenance.sql.js';
import { extendLocksSql, markFailedSql, markPublishedSql, releaseSql } from '../src/outbox/settle-rows.sql.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Join Filter'?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describe.skipIf(!up)('outbox claim plan', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  const table = '"public"."protean_outbox"';

  beforeAll(async () => {
    db = await createTempDatabase('outbox_plan');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  async function plan(statement: { sql: string; params: unknown[] }): Promise<PlanNode[]> {
    const result = await provider.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
    return nodesOf(result.rows[0]!['QUERY PLAN'][0].Plan);
  }

  async function expectIndexDrivenClaim(cursor: string, publishedIds: string[] = []): Promise<void> {
    const nodes = await plan(claimBatchSql(table, { workerId: 'w', targetBroker: 'default', limit: 100, lockMs: 30000 }, cursor, publishedIds));
    const outboxScans = nodes.filter((n) => n['Relation Name'] === 'protean_outbox');
    expect(outboxScans.length).toBeGreaterThan(0);
    // Bitmap heap scans only appear under an index (the primary key for `id = ANY(...)`); a Seq Scan never may.
    expect(outboxScans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(outboxScans.some((n) => n['Index Name'] === 'protean_outbox_head_idx')).toBe(true);
    expect(nodes.some((n) => n['Node Type'] === 'Sort')).toBe(false);
    // The degenerate plan measured with stale statistics matched keys in a join filter over an
    // unparameterised index scan (800 ms for 20,000 rows): every key match must be an index condition.
    expect(nodes.filter((n) => n['Join Filter']?.includes('partition_key'))).toEqual([]);
  }

  async function insert(count: number, status: 'pending' | 'published', keys: number): Promise<void> {
    await provider.execute(
      `INSERT INTO ${table} (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker,
         max_retries, status, published_at)
       SELECT gen_random_uuid()::text, 'plan::thing', 'plan::thing-' || (g % ?::int), g, 'Plan.ThingHappened.v1',
         jsonb_build_object('n', g), jsonb_build_object('headers', jsonb_build_object('id', g::text, 'pad', repeat('x', 300))),
         'default', 5, ?::text, CASE WHEN ?::text = 'published' THEN now() END
       FROM generate_series(1, ?::int) g`,
      [keys, status, status, count],
    );
  }

  it('uses the head index when statistics were gathered on an empty table and a burst arrived', async () => {
    await provider.execute(`ANALYZE ${table}`);
    await insert(20_000, 'pending', 500);
    await expectIndexDrivenClaim('');
    await expectIndexDrivenClaim('plan::thing-250');
  });

  it('uses the head index with 200,000 published rows present, before and after ANALYZE', async () => {
    await provider.execute(`TRUNCATE ${table}`);
    await insert(200_000, 'published', 5_000);
    await provider.execute(`ANALYZE ${table}`);
    await expectIndexDrivenClaim('');
    await insert(2_000, 'pending', 500);
    await expectIndexDrivenClaim('plan::thing-7');
    await provider.execute(`ANALYZE ${table}`);
    await expectIndexDrivenClaim('');
  });

  it('cleanup walks the cleanup index instead of scanning the table', async () => {
    const nodes = await plan(cleanupBatchSql(table, 'published', new Date(), 1000));
    const scans = nodes.filter((n) => n['Relation Name'] === 'protean_outbox');
    expect(scans.some((n) => n['Index Name'] === 'protean_outbox_finished_idx')).toBe(true);
    expect(scans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  });

  it('regression (markPublished planned on a status index): settling claimed rows looks them up by primary key', async () => {
    const ids = (await provider.execute<{ id: string }>(`SELECT id::text AS id FROM ${table} ORDER BY id LIMIT 100`)).rows.map((r) => r.id);
    const nodes = await plan(markPublishedSql(table, 'w', ids));
    const scans = nodes.filter((n) => n['Relation Name'] === 'protean_outbox');
    expect(scans.filter((n) => n['Index Name']).map((n) => n['Index Name'])).toEqual(['protean_outbox_pkey']);
    expect(scans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  });

  /** Scans of the outbox in a plan: only primary-key lookups, never a walk of another index or the table. */
  function expectPrimaryKeyOnly(nodes: PlanNode[]): void {
    const scans = nodes.filter((n) => n['Relation Name'] === 'protean_outbox');
    expect(scans.filter((n) => n['Index Name']).map((n) => n['Index Name'])).toEqual(['protean_outbox_pkey']);
    expect(scans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  }

  it('regression (statistics from before any row was active made the mark walk _head_idx): settling and the claim that marks stay primary-key lookups', async () => {
    // Statistics say no row is active, as after a deploy on a table of published rows; then a
    // burst arrives and a batch is claimed. The mark was planned as a full walk of _head_idx
    // (11 ms per 100-row mark with 18,000 active rows) until its lock guard stopped implying the
    // index predicate.
    await provider.execute(`TRUNCATE ${table}`);
    await insert(50_000, 'published', 5_000);
    await provider.execute(`ANALYZE ${table}`);
    await insert(20_000, 'pending', 500);
    const claimed = await provider.outbox.claimBatch({ workerId: 'w', targetBroker: 'default', limit: 100, lockMs: 30000 });
    const ids = claimed.map((row) => row.id);
    expect(ids).toHaveLength(100);

    expectPrimaryKeyOnly(await plan(markPublishedSql(table, 'w', ids)));
    expectPrimaryKeyOnly(await plan(releaseSql(table, 'w', ids)));
    expectPrimaryKeyOnly(
      await plan(
        markFailedSql(
          table,
          'w',
          ids.map((id) => ({ id, error: 'x', nextRetryAt: new Date(), abandon: false })),
        ),
      ),
    );
    // The lock heartbeat runs beside the relay: it must be as cheap as a mark.
    // (Two lookups: the SKIP LOCKED selection, then the update of what it locked.)
    const heartbeat = (await plan(extendLocksSql(table, 'w', ids, 30000))).filter(
      (n) => n['Relation Name'] === 'protean_outbox' && n['Node Type'] !== 'ModifyTable',
    );
    expect(heartbeat.map((n) => n['Index Name'] ?? n['Node Type'])).toEqual(['protean_outbox_pkey', 'protean_outbox_pkey']);
    await expectIndexDrivenClaim(claimed.at(-1)!.partitionKey, ids);
    // The mark inside the claim: its own scan (the only one filtered on locked_by) is by primary key.
    const nodes = await plan(claimBatchSql(table, { workerId: 'w', targetBroker: 'default', limit: 100, lockMs: 30000 }, '', ids));
    const markScans = nodes.filter(
      (n) => n['Relation Name'] === 'protean_outbox' && n['Node Type'].endsWith('Scan') && JSON.stringify(n).includes('locked_by'),
    );
    expect(markScans.map((n) => n['Index Name'])).toEqual(['protean_outbox_pkey']);
  });
});
