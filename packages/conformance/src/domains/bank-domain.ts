/**
 * The bank: a small event-sourced domain that protean-ts's own tests share (and users may borrow).
 * An Account is opened, deposited to and withdrawn from; a withdrawal beyond the balance plus the
 * overdraft limit is refused, and the limit can tighten after events were written (replay must
 * not re-check it). Each call makes a fresh Domain, so tests can init it with their own config.
 */
import { apply, BaseAggregate, BaseEvent, Domain, field, invariant, PermanentError, ValidationError } from '@protean-ts/core';

/** A withdrawal beyond the balance (plus the overdraft limit): a business refusal, never retried. */
export class InsufficientFunds extends PermanentError {}

export interface BankOptions {
  /** The aggregate's `provider` (a `[databases.<name>]`); default the domain's default. */
  provider?: string;
  /** `DomainOptions.root`: where domain.toml discovery starts (a project's `import.meta.url`). */
  root?: string;
}

// The shapes of the classes makeBank makes per domain: declared only (no runtime value), so the
// returned classes have a nameable type for the published .d.ts and for tests' annotations.
declare class AccountShape extends BaseAggregate {
  owner?: string;
  balance?: number;
  static open(owner: string): AccountShape;
  deposit(amount: number): void;
  withdraw(amount: number): void;
}
declare class OpenedShape extends BaseEvent {
  accountId: string;
  owner: string;
}
declare class AmountShape extends BaseEvent {
  accountId: string;
  amount: number;
}

export type BankAccount = AccountShape;
export type BankOpened = OpenedShape;
/** Deposited and Withdrawn carry the same fields. */
export type BankMovement = AmountShape;

export interface Bank {
  domain: Domain;
  /** Read when the rules run: change it between writing and replaying events. */
  limits: { overdraft: number };
  Account: typeof AccountShape;
  Opened: typeof OpenedShape;
  Deposited: typeof AmountShape;
  Withdrawn: typeof AmountShape;
}

/**
 * A bank named `name` (its streams are `<name>::account-<id>`, its event types `<Name>.Opened.v1`…).
 * `limits.overdraft` (default 0) is read by `withdraw` and by the no-overdraft invariant when they
 * run, so a test can change the rule between writing and replaying events.
 */
export function makeBank(name = 'Bank', options: BankOptions = {}): Bank {
  const domain = new Domain(name, options.root ? { root: options.root } : {});
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

    /** Refused up front with InsufficientFunds; a Withdrawn raised directly meets the invariant instead. */
    withdraw(amount: number): void {
      const balance = this.balance ?? 0;
      if (balance + limits.overdraft < amount) throw new InsufficientFunds(`cannot withdraw ${amount}: the balance is ${balance}`);
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
