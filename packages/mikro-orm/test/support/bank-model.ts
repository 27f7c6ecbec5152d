/** An event-sourced bank account for the PostgreSQL event-sourcing tests. */
import { apply, BaseAggregate, BaseEvent, Domain, field, invariant, ValidationError } from '@protean-ts/core';

export const bankDomain = new Domain('Bank');
const domain = bankDomain;

@domain.aggregate({ eventSourced: true })
export class Account extends BaseAggregate {
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

  @apply(() => Opened) onOpened(event: Opened): void {
    this.owner = event.owner;
    this.balance = 0;
  }

  @apply(() => Deposited) onDeposited(event: Deposited): void {
    this.balance = (this.balance ?? 0) + event.amount;
  }

  @invariant.post() noOverdraft(): void {
    if ((this.balance ?? 0) < 0) throw new ValidationError({ balance: ['cannot go below zero'] });
  }
}

@domain.event({ partOf: Account })
export class Opened extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true }) owner!: string;
}

@domain.event({ partOf: Account })
export class Deposited extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}
