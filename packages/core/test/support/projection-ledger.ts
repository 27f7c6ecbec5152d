/**
 * A small domain for projection tests (core, PostgreSQL, server, CLI): accounts raise Opened
 * and Deposited, transfers raise Sent; the AccountSummary projection keeps a balance and a
 * count of movements per account, written by one projector that follows both aggregates.
 * `eventSourced: true` stores both aggregates as events, so the projection can be rebuilt.
 *
 * Shared by the tests of other packages by relative path (`../../core/test/support/…`): it is
 * never part of the published package (its classes, returned from a function, have no
 * declarable type).
 */
import { apply, BaseAggregate, BaseEvent, BaseProjection, BaseProjector, Domain, field, on, type ProjectorOptions } from '../../src/index.js';

export interface ProjectionLedgerOptions {
  name?: string;
  eventSourced?: boolean;
  /** Passed to the projector's options (e.g. `subscriptionType`). */
  projector?: Partial<ProjectorOptions>;
}

export function projectionLedger(options: ProjectionLedgerOptions = {}) {
  const domain = new Domain(options.name ?? 'Ledger');
  const eventSourced = options.eventSourced === true;

  @domain.aggregate({ eventSourced })
  class Account extends BaseAggregate {
    @field.string() owner?: string;
    @field.integer() balance?: number;

    static open(owner: string): Account {
      const account = Account.create(eventSourced ? {} : { owner, balance: 0 });
      account.raise(Opened.create({ accountId: account.id, owner }));
      return account;
    }

    deposit(amount: number): void {
      if (!eventSourced) this.balance = (this.balance ?? 0) + amount;
      this.raise(Deposited.create({ accountId: this.id, amount }));
    }

    onOpened(event: Opened): void {
      this.owner = event.owner;
      this.balance = 0;
    }

    onDeposited(event: Deposited): void {
      this.balance = (this.balance ?? 0) + event.amount;
    }
  }

  @domain.event({ partOf: Account })
  class Opened extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.string({ required: true }) owner!: string;
  }

  @domain.event({ partOf: Account })
  class Deposited extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amount!: number;
  }

  @domain.aggregate({ eventSourced })
  class Transfer extends BaseAggregate {
    @field.identifier() from?: string;
    @field.integer() amount?: number;

    static send(from: string, amount: number): Transfer {
      const transfer = Transfer.create(eventSourced ? {} : { from, amount });
      transfer.raise(Sent.create({ transferId: transfer.id, from, amount }));
      return transfer;
    }

    onSent(event: Sent): void {
      this.from = event.from;
      this.amount = event.amount;
    }
  }

  // Rows change by assignment; only event-sourced aggregates change through @apply methods.
  if (eventSourced) {
    applyOn(Account.prototype, 'onOpened', () => Opened);
    applyOn(Account.prototype, 'onDeposited', () => Deposited);
    applyOn(Transfer.prototype, 'onSent', () => Sent);
  }

  @domain.event({ partOf: Transfer })
  class Sent extends BaseEvent {
    @field.identifier({ required: true }) transferId!: string;
    @field.identifier({ required: true }) from!: string;
    @field.integer({ required: true }) amount!: number;
  }

  @domain.projection()
  class AccountSummary extends BaseProjection {
    @field.identifier({ identifier: true }) accountId!: string;
    @field.string() owner?: string;
    @field.integer({ default: 0 }) balance!: number;
    @field.integer({ default: 0 }) movements!: number;
  }

  @domain.projector({ projectorFor: AccountSummary, aggregates: [Account, Transfer], ...options.projector })
  class AccountSummaryProjector extends BaseProjector {
    @on(Opened)
    async opened(event: Opened): Promise<void> {
      await domain.repositoryFor(AccountSummary).add(AccountSummary.create({ accountId: event.accountId, owner: event.owner, balance: 0, movements: 0 }));
    }

    @on(Deposited)
    async deposited(event: Deposited): Promise<void> {
      await this.change(event.accountId, event.amount);
    }

    @on(Sent)
    async sent(event: Sent): Promise<void> {
      await this.change(event.from, -event.amount);
    }

    private async change(accountId: string, amount: number): Promise<void> {
      const summaries = domain.repositoryFor(AccountSummary);
      const summary = await summaries.get(accountId);
      summary.balance += amount;
      summary.movements += 1;
      await summaries.add(summary);
    }
  }

  return { domain, Account, Opened, Deposited, Transfer, Sent, AccountSummary, AccountSummaryProjector };
}

function applyOn(prototype: object, method: string, event: () => new (...args: never[]) => BaseEvent): void {
  apply(event as never)(prototype, method, Object.getOwnPropertyDescriptor(prototype, method)!);
}

export type ProjectionLedger = ReturnType<typeof projectionLedger>;
