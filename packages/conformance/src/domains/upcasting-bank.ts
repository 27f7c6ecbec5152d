/**
 * The bank of bank-domain.ts after its Deposited event moved to v3: v2 keeps amounts in cents
 * (`amountCents`), v3 adds a currency. Its upcasters (v1 → v2 → v3) let streams written by the
 * v1 bank (`makeBank()`) load; `upcasters` chooses which of them are registered.
 */
import { apply, BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type MessageMetadata } from '@protean-ts/core';
import type { Bank } from './bank-domain.js';

export type UpcasterStep = '1->2' | '2->3';

// Declared only, as in bank-domain.ts: a nameable type for the classes made per domain.
declare class UpcastAccountShape extends BaseAggregate {
  owner?: string;
  balanceCents?: number;
  deposit(amountCents: number): void;
}
declare class DepositedV3Shape extends BaseEvent {
  accountId: string;
  amountCents: number;
  currency: string;
}

export type UpcastingBankAccount = UpcastAccountShape;
export type UpcastingBankDeposited = DepositedV3Shape;

export interface UpcastingBank {
  domain: Domain;
  Account: typeof UpcastAccountShape;
  Opened: Bank['Opened'];
  Deposited: typeof DepositedV3Shape;
  Withdrawn: Bank['Withdrawn'];
  /** An event handler of Deposited: it records what it was given in `handled`. */
  DepositLog: typeof BaseEventHandler;
  handled: { amountCents: number; currency: string }[];
  /** The type header of each envelope the v1 → v2 upcaster saw. */
  seenMetadata: string[];
}

export function makeUpcastingBank(upcasters: readonly UpcasterStep[] = ['1->2', '2->3']): UpcastingBank {
  const domain = new Domain('Bank');
  const handled: { amountCents: number; currency: string }[] = [];
  const seenMetadata: string[] = [];

  @domain.aggregate({ eventSourced: true })
  class Account extends BaseAggregate {
    @field.string() owner?: string;
    @field.integer() balanceCents?: number;

    deposit(amountCents: number): void {
      this.raise(Deposited.create({ accountId: this.id, amountCents, currency: 'EUR' }));
    }

    @apply(() => Opened) onOpened(event: Opened): void {
      this.owner = event.owner;
      this.balanceCents = 0;
    }

    @apply(() => Deposited) onDeposited(event: Deposited): void {
      this.balanceCents = (this.balanceCents ?? 0) + event.amountCents;
    }

    @apply(() => Withdrawn) onWithdrawn(event: Withdrawn): void {
      this.balanceCents = (this.balanceCents ?? 0) - event.amount * 100;
    }
  }

  @domain.event({ partOf: Account })
  class Opened extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.string({ required: true }) owner!: string;
  }

  @domain.event({ partOf: Account, version: 3 })
  class Deposited extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amountCents!: number;
    @field.string({ required: true }) currency!: string;
  }

  @domain.event({ partOf: Account })
  class Withdrawn extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amount!: number;
  }

  class DepositInCents {
    upcast(data: Record<string, unknown>, metadata: Readonly<MessageMetadata>): Record<string, unknown> {
      seenMetadata.push(metadata.headers.type);
      const { amount, ...rest } = data;
      return { ...rest, amountCents: Number(amount) * 100 };
    }
  }
  class DepositInEuros {
    upcast(data: Record<string, unknown>): Record<string, unknown> {
      return { ...data, currency: 'EUR' };
    }
  }
  if (upcasters.includes('1->2')) domain.upcaster({ event: Deposited, from: 1, to: 2 })(DepositInCents);
  if (upcasters.includes('2->3')) domain.upcaster({ event: Deposited, from: 2, to: 3 })(DepositInEuros);

  @domain.eventHandler({ partOf: Account })
  class DepositLog extends BaseEventHandler {
    @handle(Deposited) onDeposited(event: Deposited): void {
      handled.push({ amountCents: event.amountCents, currency: event.currency });
    }
  }

  return { domain, Account, Opened, Deposited, Withdrawn, DepositLog, handled, seenMetadata };
}
