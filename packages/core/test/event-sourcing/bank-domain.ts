/**
 * An event-sourced bank account for the event-sourcing tests: opened, deposited to, withdrawn
 * from, with an invariant (no negative balance) that replay must not re-check.
 */
import { apply, BaseAggregate, BaseEvent, Domain, field, invariant, ValidationError } from '../../src/index.js';

export function makeBank(name = 'Bank', options: { provider?: string } = {}) {
  const domain = new Domain(name);
  // The overdraft rule can tighten after events were written, as business rules do.
  const limits = { overdraft: 0 };

  @domain.aggregate({ eventSourced: true, ...(options.provider ? { provider: options.provider } : {}) })
  class Account extends BaseAggregate {
    @field.string() owner?: string;
    @field.integer() balance?: number;

    static open(owner: string): Account {
      const account = Account.create({});
      account.raise(Opened.create({ accountId: account.id, owner }));
      return account;
    }

    deposit(amount: number): void {
      this.raise(Deposited.create({ accountId: this.id, amount }));
    }

    withdraw(amount: number): void {
      this.raise(Withdrawn.create({ accountId: this.id, amount }));
    }

    @apply(() => Opened) onOpened(event: Opened): void {
      this.owner = event.owner;
      this.balance = 0;
    }

    @apply(() => Deposited) onDeposited(event: Deposited): void {
      this.balance = (this.balance ?? 0) + event.amount;
    }

    @apply(() => Withdrawn) onWithdrawn(event: Withdrawn): void {
      this.balance = (this.balance ?? 0) - event.amount;
    }

    @invariant.post() noOverdraft(): void {
      if ((this.balance ?? 0) < -limits.overdraft) throw new ValidationError({ balance: [`cannot go below -${limits.overdraft}`] });
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

  @domain.event({ partOf: Account })
  class Withdrawn extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amount!: number;
  }

  return { domain, limits, Account, Opened, Deposited, Withdrawn };
}
