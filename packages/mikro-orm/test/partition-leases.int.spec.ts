/** The PostgreSQL partition leases against a real server: the shared PartitionLeaseStore conformance suite, and its set-up. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePartitionLeaseConformance, POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL partition leases', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('partition_leases');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 8 });
    await provider.connect();
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  describePartitionLeaseConformance('postgresql', { open: async () => provider.partitionLeases });

  it('set-up creates the partition lease tables with the outbox, then reports them as existing', async () => {
    const again = await provider.setupOutbox();
    expect(again.created).toEqual([]);
    expect(again.existing).toEqual(expect.arrayContaining(['protean_partition_members', 'protean_partition_leases']));
  });

  it('judges expiry by the database clock: a lease the database says has run out is taken', async () => {
    await provider.partitionLeases.claim('clock', 'a', [0], 60_000);
    await queryDatabase(db.uri, `UPDATE protean_partition_leases SET expires_at = now() - interval '1 second' WHERE scope = 'clock'`);
    expect(await provider.partitionLeases.claim('clock', 'b', [0, 0], 60_000)).toEqual({ members: ['a', 'b'], held: [{ partition: 0, epoch: 2 }] });
  });

  it('names db setup when the tables are missing (a database set up before partitions existed)', async () => {
    const bare = await createTempDatabase('partition_leases_bare');
    const old = new PostgresProvider('default', { provider: 'postgresql', database_uri: bare.uri, managed: true, pool_size: 2 });
    try {
      await old.connect();
      await expect(old.partitionLeases.claim('s', 'a', [0], 10_000)).rejects.toThrow(/partition lease tables .* missing .*run protean-ts db setup/);
      await expect(old.partitionLeases.leases('s')).rejects.toThrow(/run protean-ts db setup/);
    } finally {
      await old.close();
      await bare.drop();
    }
  });
});
