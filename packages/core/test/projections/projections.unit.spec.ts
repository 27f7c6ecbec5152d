/**
 * Projections on the memory database: stored and read like aggregates, read-only through
 * domain.viewFor, never raising; projectors run after commit with event_processing = "sync"
 * and through domain.handleMessage (what the server's subscriptions call).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging, ObjectNotFoundError, ProjectionRaiseError, ReadOnlyViewError, RegistrationError } from '../../src/index.js';
import { projectionLedger, type ProjectionLedger } from '../support/projection-ledger.js';

const memory = (overrides: Record<string, unknown> = {}) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  ...overrides,
});

describe('projections and projectors (memory)', () => {
  let ledger: ProjectionLedger;
  let restoreLogging: ReturnType<typeof configureLogging> | undefined;

  async function start(overrides: Record<string, unknown> = {}): Promise<ProjectionLedger> {
    restoreLogging = configureLogging({ sink: () => {} });
    ledger = projectionLedger();
    await ledger.domain.init({ config: memory(overrides) });
    return ledger;
  }

  afterEach(async () => {
    await ledger?.domain.close();
    if (restoreLogging) configureLogging(restoreLogging);
  });

  it('with event_processing = "sync", the projector keeps the projection in step after each commit', async () => {
    const { domain, Account, Transfer, AccountSummary } = await start({ event_processing: 'sync' });
    const account = Account.open('Ann');
    account.deposit(10);
    await domain.repositoryFor(Account).add(account);
    await domain.repositoryFor(Transfer).add(Transfer.send(account.id, 4));
    const summary = await domain.viewFor(AccountSummary).get(account.id);
    expect([summary.owner, summary.balance, summary.movements]).toEqual(['Ann', 6, 2]);
  });

  it('viewFor reads with get, find, query, count and exists', async () => {
    const { domain, Account, AccountSummary } = await start({ event_processing: 'sync' });
    for (const owner of ['Ann', 'Bob', 'Cy']) await domain.repositoryFor(Account).add(Account.open(owner));
    const view = domain.viewFor(AccountSummary);
    expect(await view.count()).toBe(3);
    expect(await view.count({ owner: 'Bob' })).toBe(1);
    const [bob] = await view.query({ filter: { owner: 'Bob' } });
    expect(await view.exists(bob!.accountId)).toBe(true);
    expect(await view.exists('nobody')).toBe(false);
    expect((await view.find(bob!.accountId))?.owner).toBe('Bob');
    expect(await view.find('nobody')).toBeUndefined();
    await expect(view.get('nobody')).rejects.toThrow(ObjectNotFoundError);
    expect((await view.query({ orderBy: { owner: 'desc' }, limit: 2 })).map((s) => s.owner)).toEqual(['Cy', 'Bob']);
  });

  it('refuses writes through viewFor by name', async () => {
    const { domain, AccountSummary } = await start();
    const view = domain.viewFor(AccountSummary) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const summary = AccountSummary.create({ accountId: 'a1', balance: 0, movements: 0 });
    expect(() => view.add!(summary)).toThrow(ReadOnlyViewError);
    expect(() => view.add!(summary)).toThrow('domain.viewFor(AccountSummary) is read-only: add() is refused');
    expect(() => view.save!(summary)).toThrow('save() is refused');
    expect(() => view.delete!('a1')).toThrow('delete() is refused');
  });

  it('viewFor refuses what is not a projection, by name', async () => {
    const { domain, Account } = await start();
    expect(() => domain.viewFor(Account as never)).toThrow(RegistrationError);
    expect(() => domain.viewFor(Account as never)).toThrow('domain.viewFor(Account): it is registered as aggregate; viewFor reads projections');
  });

  it('a projection refuses to raise events', async () => {
    const { AccountSummary, Opened } = await start();
    const summary = AccountSummary.create({ accountId: 'a1', balance: 0, movements: 0 });
    expect(() => summary.raise(Opened.create({ accountId: 'a1', owner: 'Ann' }))).toThrow(ProjectionRaiseError);
    expect(() => summary.raise(Opened.create({ accountId: 'a1', owner: 'Ann' }))).toThrow('AccountSummary is a projection and cannot raise Opened');
  });

  it('with event_processing = "async", nothing runs after commit; domain.handleMessage runs the projector once per message through the inbox, in key order', async () => {
    const { domain, Account, AccountSummary, AccountSummaryProjector } = await start({ event_processing: 'async', enable_outbox: true });
    const account = Account.open('Ann');
    account.deposit(5);
    await domain.repositoryFor(Account).add(account);
    const loaded = await domain.repositoryFor(Account).get(account.id);
    loaded.deposit(7);
    await domain.repositoryFor(Account).add(loaded);
    expect(await domain.viewFor(AccountSummary).count()).toBe(0);

    const rows = (await domain.providers.get('default')!.outbox.list({ limit: 10 })).sort((a, b) => a.sequence - b.sequence);
    const envelopes = rows.map((row) => ({
      ...row.envelope,
      metadata: { ...row.envelope.metadata, envelope: { ...row.envelope.metadata.envelope, position: { key: row.partitionKey, sequence: row.sequence } } },
    }));
    expect(envelopes).toHaveLength(3);
    const deliver = (index: number) =>
      domain.handleMessage(envelopes[index]!, {
        handler: AccountSummaryProjector,
        inbox: { subscription: 'AccountSummaryProjector', brokerMessageId: `m${index}` },
      });
    expect(await deliver(1)).toBe('early');
    expect(await deliver(0)).toBe('handled');
    expect(await deliver(0)).toBe('duplicate');
    expect(await deliver(1)).toBe('handled');
    expect(await deliver(2)).toBe('handled');
    const summary = await domain.viewFor(AccountSummary).get(account.id);
    expect([summary.balance, summary.movements]).toEqual([12, 2]);
  });
});
