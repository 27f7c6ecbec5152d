/**
 * A small bank for the kit's own tests: an event-sourced Account (withdrawals refused beyond the
 * balance), commands with their handler, and an event handler keeping a Statement line per
 * movement, which runs asynchronously when event_processing = "async".
 */
import { apply, BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, BaseEventHandler, Domain, field, handle, PermanentError } from '@protean-ts/core';

export const bank = new Domain('Bank');

export class InsufficientFunds extends PermanentError {}

@bank.aggregate({ eventSourced: true })
export class Account extends BaseAggregate {
  @field.string() owner?: string;
  @field.integer() balance?: number;

  withdraw(amount: number): void {
    if ((this.balance ?? 0) < amount) throw new InsufficientFunds(`cannot withdraw ${amount}: the balance is ${this.balance ?? 0}`);
    this.raise(Withdrawn.create({ accountId: this.id, amount }));
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

  @apply(() => Withdrawn) onWithdrawn(event: Withdrawn): void {
    this.balance = (this.balance ?? 0) - event.amount;
  }
}

@bank.event({ partOf: Account })
export class Opened extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true }) owner!: string;
}

@bank.event({ partOf: Account })
export class Deposited extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}

@bank.event({ partOf: Account })
export class Withdrawn extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}

@bank.command({ partOf: Account })
export class Withdraw extends BaseCommand {
  @field.identifier({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}

@bank.commandHandler({ partOf: Account })
export class Teller extends BaseCommandHandler {
  @handle(Withdraw) async withdraw(command: Withdraw): Promise<number> {
    const accounts = bank.repositoryFor(Account);
    const account = await accounts.get(command.accountId);
    account.withdraw(command.amount);
    await accounts.add(account);
    return account.balance ?? 0;
  }
}

/** A command whose handler always fails for a reason that retrying might fix (so it is retried, then dead-lettered). */
@bank.command({ partOf: Account })
export class Audit extends BaseCommand {
  @field.identifier({ required: true }) accountId!: string;
}

@bank.commandHandler({ partOf: Account })
export class Auditors extends BaseCommandHandler {
  @handle(Audit) audit(): never {
    throw new Error('the auditor is out');
  }
}

/** A plain (stored as a row) aggregate: one line per movement, written by the event handler. */
@bank.aggregate()
export class StatementLine extends BaseAggregate {
  @field.string({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}

@bank.eventHandler({ partOf: StatementLine, streamCategory: Account })
export class Statements extends BaseEventHandler {
  @handle(Withdrawn) async onWithdrawn(event: Withdrawn): Promise<void> {
    await bank.repositoryFor(StatementLine).add(StatementLine.create({ accountId: event.accountId, amount: -event.amount }));
  }
}
