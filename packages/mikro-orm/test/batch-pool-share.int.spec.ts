/**
 * Batched transactions of one provider hold at most half its pool at once (BatchPermits), on a
 * real PostgreSQL: with `pool_size = 4` two batches hold connections, a third waits without one,
 * and work that runs alone still gets a connection meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '../src/index.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('batched transactions share the pool', () => {
  const fixture = new ProviderFixture({ pool_size: 4 });
  let provider: PostgresProvider;

  beforeAll(async () => {
    provider = await fixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('lets two batches of a 4-connection pool hold connections; a third waits for one to end while transactions alone go on', async () => {
    const first = await provider.beginBatch();
    const second = await provider.beginBatch();
    let thirdOpened = false;
    const third = provider.beginBatch().then((batch) => {
      thirdOpened = true;
      return batch;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(thirdOpened).toBe(false);

    // The other half of the pool is free for work that runs alone, however many batches wait.
    const alone = await provider.begin();
    const { rows } = await alone.execute<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);
    await alone.commit();

    const savepoint = await first.savepoint();
    await savepoint.execute('SELECT 1');
    await savepoint.commit();
    await first.commit();
    const opened = await third;
    expect(thirdOpened).toBe(true);
    await second.rollback();
    await opened.commit();
  });
});
