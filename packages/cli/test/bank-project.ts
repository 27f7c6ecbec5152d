/** The bank fixture of the event-store CLI tests: an event-sourced Account and a plain Note. */

/** An event-sourced Account (events written through its repository) and a plain Note aggregate. */
export const BANK_DOMAIN = `
import { apply, BaseAggregate, BaseEvent, Domain, field } from '@protean-ts/core';
export const domain = new Domain('Bank', { root: import.meta.url });

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

@domain.aggregate()
export class Note extends BaseAggregate {
  @field.string() text?: string;
}
`;

/** Ann's account: opened, then 5 and 7 deposited in a second load-and-add; Bob's: opened. */
export const BANK_SEED = `
import { domain, Account } from './domain.ts';
await domain.init();
const accounts = domain.repositoryFor(Account);
const ann = Account.open('Ann');
await accounts.add(ann);
const loaded = await accounts.get(ann.id);
loaded.deposit(5);
loaded.deposit(7);
await accounts.add(loaded);
await accounts.add(Account.open('Bob'));
await domain.close();
`;
