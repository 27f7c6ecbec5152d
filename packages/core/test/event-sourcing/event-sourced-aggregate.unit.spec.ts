/** Event-sourced aggregates: state changes only by applying events, and init refuses gaps by name. */
import { describe, expect, it } from 'vitest';
import { apply, BaseAggregate, BaseEvent, Domain, DomainModelError, EventSourcedChangeError, field, ValidationError } from '../../src/index.js';
import { makeBank } from '@protean-ts/conformance/fixtures';

const memory = { databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } };

describe('event-sourced aggregates', () => {
  it('start at version -1; raise applies the event through @apply and bumps the version', () => {
    const { Account, Opened, Deposited } = makeBank();
    const account = Account.create({});
    expect(account._version).toBe(-1);
    account.raise(Opened.create({ accountId: account.id, owner: 'Ann' }));
    expect(account.owner).toBe('Ann');
    expect(account.balance).toBe(0);
    expect(account._version).toBe(0);
    account.deposit(30);
    expect(account.balance).toBe(30);
    expect(account._version).toBe(1);
    expect(account.pendingEvents().map((e) => e.constructor)).toEqual([expect.anything(), Deposited]);
    expect(account.pendingEvents()[1]!._metadata!.domain.expectedVersion).toBe(0);
  });

  it('checks invariants when raising: a refused event changes nothing and is not kept', () => {
    const { Account, Withdrawn } = makeBank();
    const account = Account.open('Ann');
    account.deposit(10);
    // Raised directly: withdraw() would refuse it up front, before the invariant runs.
    expect(() => account.raise(Withdrawn.create({ accountId: account.id, amount: 11 }))).toThrow(ValidationError);
    expect(account.balance).toBe(10);
    expect(account._version).toBe(1);
    expect(account.pendingEvents()).toHaveLength(2);
  });

  it('refuses a field assignment outside an @apply method, naming the field', () => {
    const { Account } = makeBank();
    const account = Account.open('Ann');
    expect(() => {
      account.balance = 1_000;
    }).toThrow(EventSourcedChangeError);
    expect(() => {
      account.balance = 1_000;
    }).toThrow(/Account\.balance can only change inside an @apply method/);
    expect(account.balance).toBe(0);
  });

  it('refuses raising an event it has no @apply method for', () => {
    const { domain, Account } = makeBank();
    @domain.event()
    class Audited extends BaseEvent {
      @field.string() note?: string;
    }
    const account = Account.open('Ann');
    expect(() => account.raise(Audited.create({ note: 'x' }))).toThrow(/Account is event-sourced but has no @apply\(Audited\) method/);
    expect(account._version).toBe(0);
  });
});

describe('domain.init() refuses an incomplete event-sourced model by name', () => {
  it('an event that is part of the aggregate without an @apply method', async () => {
    const { domain, Account } = makeBank('Gaps');
    @domain.event({ partOf: Account })
    class Frozen extends BaseEvent {
      @field.string() reason?: string;
    }
    expect(Frozen.name).toBe('Frozen');
    await expect(domain.init({ config: memory })).rejects.toThrow(DomainModelError);
    await expect(domain.init({ config: memory })).rejects.toThrow('Account (aggregate): event-sourced, but its event Frozen has no @apply(Frozen) method');
  });

  it('an @apply for an event that is not part of the aggregate', async () => {
    const domain = new Domain('Stray');
    @domain.aggregate()
    class Ledger extends BaseAggregate {
      @field.string() name?: string;
    }
    @domain.event({ partOf: Ledger })
    class Posted extends BaseEvent {
      @field.string() note?: string;
    }
    @domain.aggregate({ eventSourced: true })
    class Wallet extends BaseAggregate {
      @field.string() note?: string;
      @apply(Posted) onPosted(event: Posted): void {
        this.note = event.note;
      }
    }
    expect(Wallet.name).toBe('Wallet');
    await expect(domain.init({ config: memory })).rejects.toThrow(
      'Wallet.onPosted: @apply(Posted) names an event that is not part of Wallet (its partOf is Ledger)',
    );
  });

  it('@apply methods on an aggregate that is not event-sourced', async () => {
    const domain = new Domain('Stored');
    @domain.aggregate()
    class Basket extends BaseAggregate {
      @field.string() note?: string;
      @apply(() => Noted) onNoted(event: Noted): void {
        this.note = event.note;
      }
    }
    @domain.event({ partOf: Basket })
    class Noted extends BaseEvent {
      @field.string() note?: string;
    }
    await expect(domain.init({ config: memory })).rejects.toThrow('Basket (aggregate): has @apply methods (onNoted) but is not event-sourced');
  });

  it('two @apply methods for one event', async () => {
    const domain = new Domain('Twice');
    @domain.aggregate({ eventSourced: true })
    class Tab extends BaseAggregate {
      @field.string() note?: string;
      @apply(() => Noted) first(event: Noted): void {
        this.note = event.note;
      }
      @apply(() => Noted) second(event: Noted): void {
        this.note = event.note;
      }
    }
    @domain.event({ partOf: Tab })
    class Noted extends BaseEvent {
      @field.string() note?: string;
    }
    await expect(domain.init({ config: memory })).rejects.toThrow('Tab (aggregate): has 2 @apply methods for Noted (first, second); keep one');
  });

  it('an event-sourced aggregate whose stream category cannot name event-store streams', async () => {
    const domain = new Domain('Cats');
    @domain.aggregate({ eventSourced: true, streamCategory: 'plain-category' })
    class Till extends BaseAggregate {
      @field.string() note?: string;
    }
    expect(Till.name).toBe('Till');
    await expect(domain.init({ config: memory })).rejects.toThrow(
      'Till (aggregate): event-sourced, so its streamCategory must be <domain>::<category> without "-" (got "plain-category")',
    );
  });

  it('accepts the complete bank model', async () => {
    const { domain } = makeBank();
    await domain.init({ config: memory });
    await domain.close();
  });
});
