/**
 * Due times must not make the relay's statements walk the table: `promoteDue` reads due rows
 * through `_scheduled_idx`, and a completed process manager's cancellation finds its rows through
 * `_scheduled_key_idx`, however many published rows there are. Plans, not timings (EXPLAIN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { cancelScheduledSql, promoteDueSql } from '../src/outbox/maintenance.sql.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe.skipIf(!up)('outbox due-time plans', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  const table = '"public"."protean_outbox"';

  beforeAll(async () => {
    db = await createTempDatabase('outbox_due_plan');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await provider.setupOutbox();
    await queryDatabase(
      db.uri,
      `INSERT INTO protean_outbox (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, max_retries, status, published_at)
      SELECT 'p' || g, 'shop::order', 'shop::order-' || g, 1, 'Shop.OrderPlaced.v1', '{}', '{}', 'default', 3, 'published', now()
      FROM generate_series(1, 100000) g`,
    );
    await queryDatabase(
      db.uri,
      `INSERT INTO protean_outbox (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, max_retries, status, deliver_at)
      SELECT 's' || g, 'shop::order', 'shop::fulfilment-' || g || '/timeout/' || g, 1, 'Shop.PaymentTimedOut.v1', '{}', '{}', 'default', 3, 'scheduled', now() + interval '1 hour'
      FROM generate_series(1, 2000) g`,
    );
  }, 120_000);
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  async function scansOf(statement: { sql: string; params: unknown[] }): Promise<PlanNode[]> {
    const result = await provider.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
    return nodesOf(result.rows[0]!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === 'protean_outbox');
  }

  it.each([['before ANALYZE'], ['after ANALYZE']])('promoteDue and cancelScheduled use their partial indexes (%s)', async (when) => {
    if (when === 'after ANALYZE') await queryDatabase(db.uri, 'ANALYZE protean_outbox');
    const promote = await scansOf(promoteDueSql(table, 'default', 1000));
    expect(promote.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    // Reads go through the scheduled index (and the primary key for the update); nothing else.
    const reads = promote.filter((node) => node['Node Type'] !== 'ModifyTable');
    expect(reads.every((node) => node['Index Name'] === 'protean_outbox_scheduled_idx' || node['Index Name'] === 'protean_outbox_pkey')).toBe(true);
    expect(promote.some((node) => node['Index Name'] === 'protean_outbox_scheduled_idx')).toBe(true);
    const cancel = await scansOf(cancelScheduledSql(table, 'shop::fulfilment-42/timeout/'));
    expect(cancel.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(cancel.some((node) => node['Index Name'] === 'protean_outbox_scheduled_key_idx')).toBe(true);
  });
});
