/**
 * Projectors through the server: one subscription per (projector, category) from Redis streams,
 * and from the event store; while a projection is rebuilt its projector's subscription waits
 * (writing nothing, logging the wait and the resume once however many of its messages wait) as
 * other handlers keep running, and after the rebuild the events it applied are not applied again.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BaseEventHandler, handle, ProjectionRebuildingError, rebuildProjection, type Domain } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { projectionLedger } from '../../core/test/support/projection-ledger.js';
import { Engine } from '../src/engine/engine.js';
import { planSubscriptions } from '../src/subscriptions/subscription-plan.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

function config(db: TempDatabase, prefix: string) {
  return {
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
    brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
    event_processing: 'async',
    server: { health: { port: 0 }, stream_subscription: { blocking_timeout_ms: 100 }, event_store_subscription: { lease_seconds: 5 } },
    outbox: { tick_interval: 0.2 },
  };
}

async function setupTables(domain: Domain): Promise<void> {
  for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
}

describe.skipIf(!up)('projectors through the server', () => {
  let db: TempDatabase;
  let engine: Engine | null = null;
  let domain: Domain | null = null;
  let logs: ReturnType<typeof captureLogs>;
  beforeAll(async () => {
    db = await createTempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    await domain?.close();
    domain = null;
    logs.restore();
  });

  it('plans one subscription per category, named <Projector>-<category>, and delivers from Redis streams in order', async () => {
    const ledger = projectionLedger({ name: 'ProjStream' });
    domain = ledger.domain;
    await domain.init({ config: config(db, uniquePrefix('proj-stream')) });
    await setupTables(domain);
    expect(
      planSubscriptions(domain)
        .filter((p) => p.role === 'projector')
        .map((p) => [p.group, p.stream, p.source]),
    ).toEqual([
      ['AccountSummaryProjector-proj_stream::account', 'proj_stream::account', 'stream'],
      ['AccountSummaryProjector-proj_stream::transfer', 'proj_stream::transfer', 'stream'],
    ]);
    engine = new Engine(domain, { health: false });
    await engine.start();
    const accounts = domain.repositoryFor(ledger.Account);
    const ann = ledger.Account.open('Ann');
    for (let i = 1; i <= 20; i++) ann.deposit(i);
    await accounts.add(ann);
    await domain.repositoryFor(ledger.Transfer).add(ledger.Transfer.send(ann.id, 10));
    const view = domain.viewFor(ledger.AccountSummary);
    await eventually(async () => (await view.find(ann.id))?.movements === 21);
    expect(await view.get(ann.id)).toMatchObject({ balance: 200, movements: 21 });
  });

  it('from the event store: waits while the projection is rebuilt (other handlers run on), and applies nothing twice after the rebuild', async () => {
    const ledger = projectionLedger({ name: 'ProjStore', eventSourced: true, projector: { subscriptionType: 'event_store' } });
    domain = ledger.domain;
    const audited: number[] = [];
    @ledger.domain.eventHandler({ partOf: ledger.Account, subscriptionType: 'event_store' })
    class Audit extends BaseEventHandler {
      @handle(ledger.Deposited) deposited(event: InstanceType<typeof ledger.Deposited>): void {
        audited.push(event.amount);
      }
    }
    expect(Audit).toBeDefined();
    await domain.init({ config: config(db, uniquePrefix('proj-store')) });
    await setupTables(domain);
    engine = new Engine(domain, { health: false });
    await engine.start();
    const accounts = domain.repositoryFor(ledger.Account);
    const view = domain.viewFor(ledger.AccountSummary);
    const ann = ledger.Account.open('Ann');
    ann.deposit(5);
    await accounts.add(ann);
    const others = ['Bob', 'Cy', 'Di', 'Ed'].map((owner) => ledger.Account.open(owner));
    for (const other of others) await accounts.add(other);
    await eventually(async () => (await view.find(ann.id))?.balance === 5 && (await Promise.all(others.map((other) => view.exists(other.id)))).every(Boolean));

    // The subscription's messages refused because of the mark, by message id.
    const refused = new Set<string>();
    const handleMessage = domain.handleMessage.bind(domain);
    const spy = vi.spyOn(domain, 'handleMessage').mockImplementation(async (envelope, options) => {
      try {
        return await handleMessage(envelope, options);
      } catch (error) {
        if (error instanceof ProjectionRebuildingError) refused.add(envelope.metadata.headers.id);
        throw error;
      }
    });
    const status = domain.providers.get('default')!.projections;
    await status.markRebuilding('AccountSummary');
    // Five streams: five messages of the account subscription wait at once (concurrency 32).
    for (const account of [ann, ...others]) {
      const loaded = await accounts.get(account.id);
      loaded.deposit(7);
      await accounts.add(loaded);
    }
    await eventually(() => audited.filter((amount) => amount === 7).length === 5);
    await eventually(() => refused.size === 5);
    expect((await view.get(ann.id)).balance).toBe(5);

    const summary = await rebuildProjection(domain, ledger.AccountSummary);
    spy.mockRestore();
    expect([summary.applied, summary.skipped]).toEqual([11, 0]);
    expect(await view.get(ann.id)).toMatchObject({ balance: 12, movements: 2 });
    await eventually(() => logs.records.some((r) => r.msg === 'projection rebuild ended; the projector resumes'));
    await eventually(async () => (await view.get(others[3]!.id)).balance === 7);
    // Once for the subscription, not once per waiting message.
    const logged = (msg: string) => logs.records.filter((r) => r.msg === msg).map((r) => r.subscription);
    expect(logged('projection is being rebuilt; its projector waits')).toEqual(['AccountSummaryProjector-proj_store::account']);
    expect(logged('projection rebuild ended; the projector resumes')).toEqual(['AccountSummaryProjector-proj_store::account']);
    const again = await accounts.get(ann.id);
    again.deposit(1);
    await accounts.add(again);
    await eventually(async () => (await view.get(ann.id)).movements === 3);
    expect(await view.get(ann.id)).toMatchObject({ balance: 13, movements: 3 });
  });
});
