/**
 * collectStatus's count of an event-store subscription's backlog while another transaction is
 * open on the PostgreSQL server: events committed after that transaction began are held back
 * from reads, so the count is "at least" (capped) and the head a drain waits for is the last
 * committed event, not the last readable one. Once the transaction ends, the full count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { collectStatus, eventStoreOf } from '../src/status/collect-status.js';
import { eventsBehind } from '../src/status/events-behind.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeLedger, newLedgerProbe } from './support/ledger-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('events behind an event-store subscription while a transaction is open elsewhere (PostgreSQL)', () => {
  let db: TempDatabase;
  let logs: ReturnType<typeof captureLogs>;
  beforeAll(async () => {
    db = await createTempDatabase();
    logs = captureLogs();
  });
  afterAll(async () => {
    logs.restore();
    await db?.drop();
  });

  it('counts at least the readable events, marks the count capped and the head at the last committed event; all of them once it ends', async () => {
    const ledger = makeLedger(
      'Held',
      {
        event_processing: 'async',
        enable_outbox: false,
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
        server: { default_subscription_type: 'event_store' },
      },
      newLedgerProbe(),
    );
    await ledger.domain.init();
    const blocker = new pg.Client({ connectionString: db.uri });
    await blocker.connect();
    try {
      for (const provider of ledger.domain.providers.values())
        await provider.setupSchema(ledger.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
      const backlog = async () => (await collectStatus(ledger.domain)).subscriptions.find((s) => s.source === 'event_store');
      // Other test files' transactions on this server hold events back too, for a moment: the
      // exact counts are the ones seen once none is open.
      await ledger.post(null, 3);
      await eventually(async () => expect(await backlog()).toMatchObject({ behind: 3, behindCapped: false }));

      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_current_xact_id()');
      await ledger.post(null, 4, 2);
      const held = await backlog();
      expect(held).toMatchObject({ behindCapped: true });
      expect(held?.behind).toBeLessThanOrEqual(3);
      const store = eventStoreOf(ledger.domain);
      const start = { transactionId: 0, globalPosition: 0 };
      const behind = await eventsBehind(store, ledger.category, start, 10_000);
      expect(behind).toMatchObject({ capped: true, heldBack: true });
      expect(behind.count).toBeLessThanOrEqual(3);
      expect(behind.last).toEqual(await store.committedEnd([ledger.category]));

      await blocker.query('COMMIT');
      await eventually(async () => expect(await backlog()).toMatchObject({ behind: 9, behindCapped: false }));
      await eventually(async () =>
        expect(await eventsBehind(store, ledger.category, start, 10_000)).toMatchObject({ count: 9, capped: false, heldBack: false, last: behind.last }),
      );
    } finally {
      await blocker.end();
      await ledger.domain.close();
    }
  });
});
