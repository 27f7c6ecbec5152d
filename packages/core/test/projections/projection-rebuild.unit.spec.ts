/**
 * Rebuilding a projection on the memory database: emptied and replayed from the event store in
 * global order, reading only the categories its projectors follow, recorded in the projector
 * subscriptions' inboxes so they do not apply the replayed events again; projectors wait while the projection is marked; projections of
 * aggregates stored as rows cannot be rebuilt, and the refusal says why.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BaseProjector,
  configureLogging,
  eventStoreInboxName,
  envelopeOf,
  on,
  ProjectionRebuildError,
  ProjectionRebuildingError,
  rebuildProjection,
  START_CURSOR,
  withPosition,
  type RebuildProgress,
} from '../../src/index.js';
import { projectionLedger, type ProjectionLedger } from '../support/projection-ledger.js';

const memory = (overrides: Record<string, unknown> = {}) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  ...overrides,
});

describe('projection rebuild (memory)', () => {
  let ledger: ProjectionLedger;
  let restoreLogging: ReturnType<typeof configureLogging> | undefined;

  async function start(eventSourced: boolean, overrides: Record<string, unknown> = {}): Promise<ProjectionLedger> {
    restoreLogging = configureLogging({ sink: () => {} });
    ledger = projectionLedger({ eventSourced, projector: eventSourced ? { subscriptionType: 'event_store' } : {} });
    await ledger.domain.init({ config: memory(overrides) });
    return ledger;
  }

  afterEach(async () => {
    await ledger?.domain.close();
    if (restoreLogging) configureLogging(restoreLogging);
  });

  async function seed(l: ProjectionLedger): Promise<string[]> {
    const ids: string[] = [];
    for (const owner of ['Ann', 'Bob']) {
      const account = l.Account.open(owner);
      account.deposit(10);
      account.deposit(5);
      await l.domain.repositoryFor(l.Account).add(account);
      ids.push(account.id);
    }
    await l.domain.repositoryFor(l.Transfer).add(l.Transfer.send(ids[0]!, 3));
    return ids;
  }

  it('empties the projection and replays every event of its projector, in order, with progress', async () => {
    const l = await start(true, { event_processing: 'sync' });
    const [ann, bob] = await seed(l);
    // Damage the read model the way a buggy projector would.
    const damaged = await l.domain.repositoryFor(l.AccountSummary).get(ann!);
    damaged.balance = 999;
    await l.domain.repositoryFor(l.AccountSummary).add(damaged);

    const progress: RebuildProgress[] = [];
    const summary = await rebuildProjection(l.domain, 'AccountSummary', { batchSize: 2, onProgress: (p) => progress.push(p) });
    expect([summary.read, summary.applied, summary.skipped]).toEqual([7, 7, 0]);
    expect(progress.map((p) => p.read)).toEqual([2, 4, 6, 7]);
    const view = l.domain.viewFor(l.AccountSummary);
    expect([(await view.get(ann!)).balance, (await view.get(ann!)).movements]).toEqual([12, 3]);
    expect((await view.get(bob!)).balance).toBe(15);
    expect(await l.domain.providers.get('default')!.projections.state('AccountSummary')).toMatchObject({ rebuilding: false, eventsApplied: 7 });
  });

  it("reads only the categories its projectors follow: a process manager's and another aggregate's events are neither read nor counted", async () => {
    const l = await start(true, { event_processing: 'sync' });
    const provider = l.domain.providers.get('default')!;
    const other = async (stream: string, type: string, count: number) => {
      const tx = await provider.begin();
      await provider.eventStore.append(
        tx,
        stream,
        Array.from({ length: count }, () => ({ messageId: randomUUID(), type, data: {} })),
      );
      await tx.commit();
    };
    // Before, between and after the followed events, as a busy store has them.
    await other('ledger::account_opening-1', 'Ledger.AccountOpening.Transitioned.v1', 5);
    const [ann] = await seed(l);
    await other('ledger::account_opening-2', 'Ledger.AccountOpening.Transitioned.v1', 6);
    await l.domain.repositoryFor(l.Transfer).add(l.Transfer.send(ann!, 1));
    await other('ledger::audit-1', 'Ledger.Audited.v1', 9);
    const followed = (await provider.eventStore.readCategories(['ledger::account', 'ledger::transfer'])).events;
    expect(followed).toHaveLength(8);

    const progress: RebuildProgress[] = [];
    const summary = await rebuildProjection(l.domain, 'AccountSummary', { batchSize: 3, onProgress: (p) => progress.push(p) });
    expect([summary.read, summary.applied, summary.skipped]).toEqual([8, 8, 0]);
    expect(progress.map((p) => [p.read, p.applied + p.skipped])).toEqual([
      [3, 3],
      [6, 6],
      [8, 8],
    ]);
    expect(summary.position).toBe(followed[7]!.globalPosition);
    expect((await l.domain.viewFor(l.AccountSummary).get(ann!)).balance).toBe(11);
  });

  it('counts each event once when several projectors of the projection follow its category: applied + skipped = read', async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    ledger = projectionLedger({ eventSourced: true });
    const opened: string[] = [];
    @ledger.domain.projector({ projectorFor: ledger.AccountSummary, aggregates: [ledger.Account] })
    class OpeningsProjector extends BaseProjector {
      @on(ledger.Opened) async opened(event: InstanceType<typeof ledger.Opened>): Promise<void> {
        opened.push(event.owner);
      }
    }
    expect(OpeningsProjector).toBeDefined();
    await ledger.domain.init({ config: memory({ event_processing: 'sync' }) });
    await seed(ledger);
    opened.length = 0;
    const summary = await rebuildProjection(ledger.domain, 'AccountSummary');
    // 6 account events (2 Opened, both projectors apply; 4 Deposited, one does) and 1 transfer event.
    expect([summary.read, summary.applied, summary.skipped]).toEqual([7, 7, 0]);
    expect(opened).toEqual(['Ann', 'Bob']);
  });

  it("records the replayed events in the subscriptions' inboxes: a later delivery of one is a duplicate, the next event is handled", async () => {
    const l = await start(true, { event_processing: 'async' });
    const [ann] = await seed(l);
    await rebuildProjection(l.domain, l.AccountSummary);
    const store = l.domain.providers.get('default')!.eventStore;
    const stream = `ledger::account-${ann}`;
    const [opened] = await store.readStream(stream);
    const deliver = (event: NonNullable<typeof opened>) =>
      l.domain.handleMessage(withPosition(envelopeOf(event), { key: stream, sequence: event.position + 1 }), {
        handler: l.AccountSummaryProjector,
        inbox: { subscription: eventStoreInboxName('AccountSummaryProjector-ledger::account'), brokerMessageId: `${event.globalPosition}` },
      });
    expect(await deliver(opened!)).toBe('duplicate');
    const account = await l.domain.repositoryFor(l.Account).get(ann!);
    account.deposit(100);
    await l.domain.repositoryFor(l.Account).add(account);
    const events = await store.readStream(stream);
    expect(await deliver(events[events.length - 1]!)).toBe('handled');
    expect((await l.domain.viewFor(l.AccountSummary).get(ann!)).balance).toBe(112);
  });

  it('while the projection is marked, its projector writes nothing and says why', async () => {
    const l = await start(true, { event_processing: 'async' });
    await seed(l);
    const status = l.domain.providers.get('default')!.projections;
    await status.markRebuilding('AccountSummary');
    const [first] = (await l.domain.providers.get('default')!.eventStore.readCategory('ledger::account')).events;
    const envelope = withPosition(envelopeOf(first!), { key: first!.streamName, sequence: 1 });
    await expect(l.domain.handleMessage(envelope, { handler: l.AccountSummaryProjector, inbox: { subscription: 'x', brokerMessageId: '1' } })).rejects.toThrow(
      ProjectionRebuildingError,
    );
    expect(await l.domain.viewFor(l.AccountSummary).count()).toBe(0);
    await status.markRebuilt('AccountSummary', 0, START_CURSOR);
    expect(await l.domain.handleMessage(envelope, { handler: l.AccountSummaryProjector, inbox: { subscription: 'x', brokerMessageId: '1' } })).toBe('handled');
  });

  it("refuses to rebuild for the server's subscriptions when the inbox is off", async () => {
    const l = await start(true, { event_processing: 'async', inbox: { enabled: false } });
    await seed(l);
    await expect(rebuildProjection(l.domain, 'AccountSummary')).rejects.toThrow('cannot rebuild AccountSummary: the inbox is off ([inbox] enabled = false)');
    expect(await l.domain.providers.get('default')!.projections.state('AccountSummary')).toBeNull();
  });

  it('refuses to rebuild a projection whose aggregates are stored as rows, saying why', async () => {
    const l = await start(false, { event_processing: 'sync' });
    await seed(l);
    await expect(rebuildProjection(l.domain, 'AccountSummary')).rejects.toThrow(ProjectionRebuildError);
    await expect(rebuildProjection(l.domain, 'AccountSummary')).rejects.toThrow(
      'cannot rebuild AccountSummary: AccountSummaryProjector follows "ledger::account", whose events are not in the event store (aggregate Account is not event-sourced: its events went through the outbox to brokers and were not kept)',
    );
    expect(await l.domain.viewFor(l.AccountSummary).count()).toBe(2);
    await expect(rebuildProjection(l.domain, 'Nope')).rejects.toThrow(
      'cannot rebuild Nope: domain Ledger has no projection named "Nope" (projections: AccountSummary)',
    );
  });
});
