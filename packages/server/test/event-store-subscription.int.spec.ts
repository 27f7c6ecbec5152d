/**
 * Event-store subscriptions on PostgreSQL with two engines in one process, each its own domain
 * instance on the same database (two workers): one holds the lease and reads, the other stands
 * by; the standby takes over from the saved cursor when the holder stops, and events read again
 * after a cursor that was not saved (a worker that died) are recognised by the inbox.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import pg from 'pg';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeLedger, newLedgerProbe, type LedgerProbe } from './support/ledger-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe.skipIf(!up)('event-store subscriptions (PostgreSQL, two workers)', () => {
  let db: TempDatabase;
  let probe: LedgerProbe;
  let logs: ReturnType<typeof captureLogs>;
  const engines: Engine[] = [];

  beforeEach(async () => {
    db = await createTempDatabase();
    probe = newLedgerProbe();
    logs = captureLogs();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    logs.restore();
    await db.drop();
  });

  async function worker(id: number) {
    const ledger = makeLedger(
      'Books',
      {
        event_processing: 'async',
        enable_outbox: false,
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
        server: {
          default_subscription_type: 'event_store',
          health: { port: 0 },
          stream_subscription: { max_retries: 1, retry_delay_seconds: 0.01, concurrency: 8 },
          event_store_subscription: { lease_seconds: 2, poll_interval_ms: 20 },
        },
      },
      probe,
    );
    await ledger.domain.init();
    for (const provider of ledger.domain.providers.values())
      await provider.setupSchema(ledger.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    const engine = new Engine(ledger.domain, { health: false, workerId: id });
    engines.push(engine);
    return { ...ledger, engine };
  }

  const sql = async (text: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: db.uri });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  };

  it('one worker reads while the other stands by; the standby takes over where the first stopped', async () => {
    const a = await worker(1);
    const b = await worker(2);
    const ids = await Promise.all(Array.from({ length: 6 }, () => a.post(null, 5, 5)));
    await a.engine.start();
    await eventually(() => expect(a.engine.subscriptionStatuses()[0]?.state).toBe('running'));
    await b.engine.start();
    await eventually(() => expect(b.engine.subscriptionStatuses()[0]?.state).toBe('standby'));
    await eventually(async () => expect([...(await a.tallies()).values()].flat()).toHaveLength(60));

    await a.engine.stop();
    await Promise.all(ids.map((id) => b.post(id, 3)));
    await eventually(async () => expect([...(await b.tallies()).values()].flat()).toHaveLength(78), 15_000);
    for (const seen of (await b.tallies()).values()) expect(seen).toEqual(upTo(13));
    // B read only what came after A's saved cursor: nothing twice.
    expect(b.engine.subscriptionStatuses()[0]).toMatchObject({ state: 'running', handled: 18, duplicates: 0 });
    expect(probe.runs).toHaveLength(78);
  });

  it('a worker that died before saving its cursor: the next one reads those events again and the inbox skips them', async () => {
    const a = await worker(1);
    const id = await a.post(null, 10);
    await a.engine.start();
    await eventually(async () => expect((await a.tallies()).get(id)).toEqual(upTo(10)));
    await a.engine.stop();
    // As if it had been killed before its last saves: cursor back to the start, lease still its own.
    await sql(
      `UPDATE protean_event_store_subscriptions SET cursor_transaction_id = 0, cursor_global_position = 0, owner = 'dead-worker', lease_expires_at = clock_timestamp() + interval '1 second'`,
    );

    const b = await worker(2);
    await b.post(id, 2);
    await b.engine.start();
    await eventually(async () => expect((await b.tallies()).get(id)).toEqual(upTo(12)), 15_000);
    expect(b.engine.subscriptionStatuses()[0]).toMatchObject({ handled: 2, duplicates: 10 });
    expect(probe.runs).toEqual(upTo(12));
    const [row] = await sql('SELECT owner, cursor_global_position::int AS position FROM protean_event_store_subscriptions');
    expect(row.owner).toBe(b.engine.consumer);
    await eventually(async () => expect((await sql('SELECT cursor_global_position::int AS p FROM protean_event_store_subscriptions'))[0].p).toBe(12));
  });

  it('test mode is not drained while committed events are held back by a transaction open elsewhere on the server', async () => {
    const a = await worker(1);
    await a.engine.start();
    await eventually(() => expect(a.engine.subscriptionStatuses()[0]?.state).toBe('running'));
    // Another client's open transaction (any database of the server) holds the readers' horizon.
    const open = new pg.Client({ connectionString: db.uri });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query('SELECT pg_current_xact_id()');
      await a.post(null, 5);
      const held = await a.engine.waitUntilDrained(1_500);
      expect(held).toMatchObject({ drained: false, busy: [expect.stringContaining('held back from readers by a transaction still open')] });
      await open.query('COMMIT');
      expect(await a.engine.waitUntilDrained(15_000)).toMatchObject({ drained: true });
      expect([...(await a.tallies()).values()].flat()).toEqual(upTo(5));
    } finally {
      await open.end();
    }
  });
});
