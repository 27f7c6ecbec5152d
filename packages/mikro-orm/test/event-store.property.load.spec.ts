/** The event store's interleaving property on PostgreSQL at load size: a random seed (FC_SEED repeats one), 1,000 runs (FC_RUNS). */
import { afterAll, beforeAll, describe } from 'vitest';
import { describeEventStoreReaderProperty, POSTGRES, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '../src/index.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL event store under a long property run', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;

  beforeAll(async () => {
    db = await createTempDatabase('event_store_load');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 12 });
    await provider.connect();
    await provider.setupOutbox();
  });
  afterAll(async () => {
    await provider?.close();
    await db?.drop();
  });

  describeEventStoreReaderProperty('postgresql', { open: async () => provider, propertyRuns: 1_000 });
});
