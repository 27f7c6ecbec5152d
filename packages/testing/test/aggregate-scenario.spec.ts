/** given / when / then on aggregates: replayed history, method calls, refusals, and failures that read well. */
import { AssertionError } from 'node:assert';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { given, stopHandlers } from '../src/index.js';
import { Account, bank, Deposited, InsufficientFunds, Opened, StatementLine, Withdraw, Withdrawn } from './support/bank.js';

const opened = (id: string) => Opened.create({ accountId: id, owner: 'ann' });

describe('given / when / then, in memory', () => {
  it('rebuilds an event-sourced aggregate from its history and checks the events a method call raises', async () => {
    const outcome = await given(Account, [opened('a1'), Deposited.create({ accountId: 'a1', amount: 100 })])
      .when((account) => account.withdraw(30))
      .then([Withdrawn.create({ accountId: 'a1', amount: 30 })]);
    expect(outcome.aggregate?.balance).toBe(70);
    expect(outcome.aggregate?.id).toBe('a1');
  });

  it('expects a refusal by its class and message', async () => {
    await given(Account, [opened('a2')])
      .when((account) => account.withdraw(1))
      .then(InsufficientFunds);
    await given(Account, [opened('a2')])
      .when((account) => account.withdraw(1))
      .thenFails(InsufficientFunds, /the balance is 0/);
  });

  it('takes an aggregate in its state, and checks event types alone when given classes', async () => {
    const account = Account.fromPlain({ id: 'a3', owner: 'bo', balance: 5 }, { version: 0 });
    await given(account)
      .when((a) => a.deposit(1))
      .then([Deposited]);
  });

  it('gives the outcome to look at', async () => {
    const { events, error, result } = await given(Account, [opened('a4')]).when((account) => {
      account.deposit(2);
      return 'done';
    }).result;
    expect([events.length, error, result]).toEqual([1, undefined, 'done']);
  });

  it('fails with an AssertionError showing both sides when the events differ', async () => {
    const failing = given(Account, [opened('a5'), Deposited.create({ accountId: 'a5', amount: 10 })])
      .when((account) => account.withdraw(3))
      .then([Withdrawn.create({ accountId: 'a5', amount: 4 })]);
    const error = await failing.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as AssertionError).message).toContain('the events raised differ');
    expect((error as AssertionError).message).toMatch(/amount: 3[\s\S]*amount: 4|amount: 4[\s\S]*amount: 3/);
  });

  it('fails when a refusal was expected but the step succeeded, naming the expected class', async () => {
    const error = await given(Account, [opened('a6'), Deposited.create({ accountId: 'a6', amount: 10 })])
      .when((account) => account.withdraw(3))
      .then(InsufficientFunds)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as Error).message).toBe('expected InsufficientFunds to be thrown, but nothing was thrown');
  });

  it('refuses events for an aggregate that is not event-sourced, saying what to do', () => {
    expect(() => given(StatementLine, [opened('x')])).toThrow(/not event-sourced.*given\(StatementLine\.create/);
  });
});

describe('given / when / then through a domain', () => {
  beforeAll(() => bank.init({ config: { event_processing: 'sync', databases: { default: { provider: 'memory' } } } }));
  afterAll(() => stopHandlers(bank));

  it('stores the history, processes the command with its handler and checks the events committed', async () => {
    const outcome = await given(Account, [opened('d1'), Deposited.create({ accountId: 'd1', amount: 50 })])
      .in(bank)
      .when(Withdraw.create({ accountId: 'd1', amount: 20 }))
      .then([Withdrawn.create({ accountId: 'd1', amount: 20 })]);
    expect(outcome.result).toBe(30);
    expect(outcome.aggregate?.balance).toBe(30);
  });

  it("checks a command handler's refusal, and that nothing was committed", async () => {
    const outcome = await given(Account, [opened('d2')])
      .in(bank)
      .when(Withdraw.create({ accountId: 'd2', amount: 1 }))
      .thenFails(InsufficientFunds);
    expect(outcome.events).toEqual([]);
  });

  it('stores an aggregate given in its state and runs a method step on it in a unit of work', async () => {
    const line = StatementLine.create({ accountId: 'd4', amount: 1 });
    const { aggregate } = await given(line)
      .in(bank)
      .when((stored) => void (stored.amount = 2))
      .then([]);
    expect(aggregate?.amount).toBe(2);
    expect((await bank.repositoryFor(StatementLine).get(line.id)).amount).toBe(2);
  });

  it('says a command needs a domain', async () => {
    await expect(given(Account, [opened('d3')]).when(Withdraw.create({ accountId: 'd3', amount: 1 }))).rejects.toThrow(
      /given\(…\)\.in\(domain\)\.when\(command\)/,
    );
  });
});
