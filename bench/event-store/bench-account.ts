/**
 * The event-sourced aggregate the event-store benchmark appends and loads: an account opened by
 * one event and changed by deposits, the shape of the framework's own event-sourcing tests.
 */
import { apply, BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, invariant, ValidationError } from '@protean-ts/core';

// root: the benchmark's own domain.toml sits next to this file.
export const benchDomain = new Domain('Bench', { root: import.meta.url });

@benchDomain.aggregate({ eventSourced: true })
export class BenchAccount extends BaseAggregate {
  @field.string({ maxLength: 50 }) owner?: string;
  @field.integer() balance?: number;

  /** A new account with `events` events: the opening and `events - 1` deposits. */
  static withEvents(events: number): BenchAccount {
    const account = BenchAccount.create({});
    account.raise(BenchOpened.create({ accountId: account.id, owner: 'Ann' }));
    for (let i = 1; i < events; i++) account.deposit(10);
    return account;
  }

  deposit(amount: number): void {
    this.raise(BenchDeposited.create({ accountId: this.id, amount }));
  }

  @apply(() => BenchOpened) onOpened(event: BenchOpened): void {
    this.owner = event.owner;
    this.balance = 0;
  }

  @apply(() => BenchDeposited) onDeposited(event: BenchDeposited): void {
    this.balance = (this.balance ?? 0) + event.amount;
  }

  @invariant.post() noOverdraft(): void {
    if ((this.balance ?? 0) < 0) throw new ValidationError({ balance: ['cannot go below zero'] });
  }
}

@benchDomain.event({ partOf: BenchAccount })
export class BenchOpened extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true }) owner!: string;
}

@benchDomain.event({ partOf: BenchAccount })
export class BenchDeposited extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.integer({ required: true }) amount!: number;
}

/** What the catch-up handler saw: its runs, and the distinct events they were for. */
export const catchUpProbe = { runs: 0, events: new Set<string>() };

function seen(event: BaseEvent): void {
  catchUpProbe.runs += 1;
  catchUpProbe.events.add(event._metadata!.headers.id);
}

/**
 * The event-store subscription of the catch-up measurement. It writes nothing of its own, so the
 * figure is the framework's cost per event: read, deserialize (checksum), a unit of work with the
 * inbox row of the event's stream, commit, cursor. (`event_processing = "async"` in domain.toml:
 * the append rounds never run it; only the server's subscription does.)
 */
@benchDomain.eventHandler({ partOf: BenchAccount, subscriptionType: 'event_store', subscriptionName: 'CatchUp' })
export class CatchUpCounter extends BaseEventHandler {
  @handle(BenchOpened) onOpened(event: BenchOpened): void {
    seen(event);
  }

  @handle(BenchDeposited) onDeposited(event: BenchDeposited): void {
    seen(event);
  }
}
