/** The PostgreSQL inbox against a real server: the shared InboxStore conformance suite, and its set-up. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInboxStoreConformance, POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL inbox store', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('inbox_store');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 8 });
    await provider.connect();
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  describeInboxStoreConformance('postgresql', { open: async () => provider });

  it('set-up creates the inbox tables with the outbox, then reports them as existing', async () => {
    const again = await provider.setupOutbox();
    expect(again.created).toEqual([]);
    expect(again.existing).toEqual(
      expect.arrayContaining([
        'protean_outbox',
        'protean_inbox_checkpoints',
        'protean_inbox_passed',
        'protean_inbox_messages',
        'protean_events',
        'protean_event_streams',
        'protean_snapshots',
      ]),
    );
  });
});
