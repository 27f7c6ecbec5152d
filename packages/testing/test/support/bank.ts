/**
 * The shared bank (`makeBank` of `@protean-ts/conformance/fixtures`: an event-sourced Account,
 * withdrawals refused beyond the balance with InsufficientFunds) with what the kit's own tests
 * add: commands with their handlers, and an event handler keeping a Statement line per
 * movement, which runs asynchronously when event_processing = "async".
 */
import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEventHandler, field, handle } from '@protean-ts/core';
import { makeBank, type BankMovement } from '@protean-ts/conformance/fixtures';

export { InsufficientFunds } from '@protean-ts/conformance/fixtures';

const made = makeBank();
export const bank = made.domain;
export const { Account, Opened, Deposited, Withdrawn } = made;

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
  @handle(Withdrawn) async onWithdrawn(event: BankMovement): Promise<void> {
    await bank.repositoryFor(StatementLine).add(StatementLine.create({ accountId: event.accountId, amount: -event.amount }));
  }
}
