/**
 * An outbox table written before due times existed (no `deliver_at`, a status check without
 * `scheduled`) is upgraded in place by `db setup` (setupOutbox): the column, the status and the
 * indexes are added, the rows already there are kept and still claimed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('outbox due times: upgrading an existing table', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('outbox_upgrade');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await provider.connect();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  it('adds deliver_at, the scheduled status and its indexes, keeping the rows', async () => {
    await provider.setupOutbox();
    // Back to the shape of the first release.
    for (const statement of [
      'DROP INDEX protean_outbox_scheduled_idx',
      'DROP INDEX protean_outbox_scheduled_key_idx',
      'ALTER TABLE protean_outbox DROP COLUMN deliver_at',
      'ALTER TABLE protean_outbox DROP CONSTRAINT protean_outbox_status_check',
      "ALTER TABLE protean_outbox ADD CONSTRAINT protean_outbox_status_check CHECK (status IN ('pending', 'processing', 'published', 'failed', 'abandoned'))",
    ])
      await queryDatabase(db.uri, statement);
    const factory = new RowFactory();
    const oldRow = factory.row('old', 1);
    await queryDatabase(
      db.uri,
      `INSERT INTO protean_outbox (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, max_retries)
       VALUES ($1, $2, $3, 1, $4, $5, $6, $7, 3)`,
      [
        oldRow.messageId,
        oldRow.streamName,
        oldRow.partitionKey,
        oldRow.messageType,
        JSON.stringify(oldRow.envelope.data),
        JSON.stringify(oldRow.envelope.metadata),
        oldRow.targetBroker,
      ],
    );

    await provider.setupOutbox();
    await provider.setupOutbox(); // idempotent: the second run changes nothing

    const later = factory.row('later', 1, { deliverAt: new Date(Date.now() + 3_600_000) });
    const tx = await provider.begin();
    await provider.outbox.append(tx, [later]);
    await tx.commit();
    const statuses = await queryDatabase<{ message_id: string; status: string }>(db.uri, 'SELECT message_id, status FROM protean_outbox ORDER BY id');
    expect(statuses).toEqual([
      { message_id: oldRow.messageId, status: 'pending' },
      { message_id: later.messageId, status: 'scheduled' },
    ]);
    const claimed = await provider.outbox.claimBatch({ workerId: 'w', targetBroker: factory.broker, limit: 10, lockMs: 30_000 });
    expect(claimed.map((row) => row.messageId)).toEqual([oldRow.messageId]);
    const constraints = await queryDatabase<{ def: string }>(
      db.uri,
      "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'protean_outbox_status_check'",
    );
    expect(constraints).toHaveLength(1);
    expect(constraints[0]!.def).toContain('scheduled');
  });
});
