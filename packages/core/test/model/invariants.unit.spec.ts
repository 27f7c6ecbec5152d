import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseEvent, BaseValueObject, Domain, field, invariant, ValidationError } from '../../src/index.js';

const domain = new Domain('Inv');

@domain.aggregate()
class Account extends BaseAggregate {
  @field.decimal({ required: true, scale: 2 }) balance!: number;
  @field.decimal({ scale: 2, default: 0 }) overdraft?: number;
  @field.boolean({ default: false }) frozen?: boolean;
  @field.hasMany(() => Hold) holds?: Hold[];

  @invariant.pre() notFrozen(): void {
    if (this.frozen) throw new ValidationError({ frozen: ['a frozen account cannot change'] });
  }

  @invariant.post() withinOverdraft(): void {
    if (this.balance < -(this.overdraft ?? 0)) throw new ValidationError({ balance: [`cannot go below -${this.overdraft ?? 0}`] });
  }

  @invariant.post() holdsCovered(): void {
    const held = (this.holds ?? []).reduce((sum, h) => sum + h.amount, 0);
    if (held > this.balance + (this.overdraft ?? 0)) throw new ValidationError({ holds: ['exceed the available funds'] });
  }

  withdraw(amount: number): void {
    this.atomicChange(() => {
      this.balance = this.balance - amount;
      this.raise(Withdrawn.create({ amount }));
    });
  }
}

@domain.entity({ partOf: Account })
class Hold extends BaseEntity {
  @field.decimal({ required: true, min: 0 }) amount!: number;
}

@domain.event({ partOf: Account })
class Withdrawn extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}

@domain.valueObject()
class Range extends BaseValueObject {
  @field.integer({ required: true }) low!: number;
  @field.integer({ required: true }) high!: number;
  @invariant.post() ordered(): void {
    if (this.low > this.high) throw new ValidationError({ low: ['must not be above high'] });
  }
}

describe('post-invariants', () => {
  it('run on create and report every violation together', () => {
    expect(() => Account.create({ balance: -5, holds: [{ amount: 1 }] })).toThrow(
      'Invalid Account: balance: cannot go below -0; holds: exceed the available funds',
    );
    expect(() => Range.create({ low: 3, high: 1 })).toThrow('Invalid Range: low: must not be above high');
  });

  it('run after each assignment, which is undone when one fails', () => {
    const account = Account.create({ balance: 10 });
    expect(() => {
      account.balance = -1;
    }).toThrow(/balance: cannot go below -0/);
    expect(account.balance).toBe(10);
    account.overdraft = 5;
    account.balance = -5;
    expect(account.balance).toBe(-5);
  });

  it('run on the aggregate when a child entity changes', () => {
    const account = Account.create({ balance: 10, holds: [{ amount: 4 }] });
    expect(() => {
      account.holds![0]!.amount = 11;
    }).toThrow(/holds: exceed the available funds/);
    expect(account.holds![0]!.amount).toBe(4);
  });

  it('are not run when rebuilding stored state', () => {
    expect(Account.fromPlain({ id: 'a', balance: -100 }).balance).toBe(-100);
  });
});

describe('pre-invariants', () => {
  it('run before a change and stop it', () => {
    const account = Account.create({ balance: 10 });
    account.frozen = true;
    expect(() => {
      account.balance = 3;
    }).toThrow('Invalid Account: frozen: a frozen account cannot change');
    expect(account.balance).toBe(10);
  });

  it('run at the start of atomicChange', () => {
    const account = Account.create({ balance: 10, frozen: true });
    expect(() => account.atomicChange(() => undefined)).toThrow(/frozen account/);
  });
});

describe('atomicChange', () => {
  it('defers checks to the end of the block', () => {
    const account = Account.create({ balance: 10 });
    account.atomicChange(() => {
      account.balance = -20; // invalid on its own
      account.overdraft = 50; // valid together
    });
    expect(account.balance).toBe(-20);
  });

  it('restores every field, child and pending event when the end check fails', () => {
    const account = Account.create({ balance: 10, holds: [{ amount: 2 }] });
    const before = account.toPlain();
    expect(() => account.withdraw(30)).toThrow(/balance: cannot go below -0/);
    expect(account.toPlain()).toEqual(before);
    expect(account.pendingEvents()).toHaveLength(0);
    expect(() =>
      account.atomicChange(() => {
        account.holds = [];
        account.holds![0]?.amount;
        account.balance = 1;
        account.holds = [Hold.create({ amount: 50 })];
      }),
    ).toThrow(/holds: exceed/);
    expect(account.toPlain()).toEqual(before);
  });

  it('restores when the block itself throws, and rethrows that error', () => {
    const account = Account.create({ balance: 10, holds: [{ amount: 1 }] });
    const hold = account.holds![0]!;
    const boom = new Error('boom');
    expect(() =>
      account.atomicChange(() => {
        account.balance = 7;
        hold.amount = 3;
        throw boom;
      }),
    ).toThrow(boom);
    expect(account.balance).toBe(10);
    expect(hold.amount).toBe(1);
  });

  it('keeps events raised in a successful block, and nests', () => {
    const account = Account.create({ balance: 10 });
    account.atomicChange(() => {
      account.withdraw(3);
      account.withdraw(2);
    });
    expect(account.balance).toBe(5);
    expect(account.pendingEvents().map((e) => (e as Withdrawn).amount)).toEqual([3, 2]);
  });

  it('refuses an async block', () => {
    const account = Account.create({ balance: 10 });
    expect(() => account.atomicChange(async () => undefined)).toThrow(/synchronous function/);
  });
});
