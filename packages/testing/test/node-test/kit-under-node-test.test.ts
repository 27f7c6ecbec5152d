/**
 * The kit under node:test, with no vitest anywhere: scenarios pass and fail through node's own
 * runner, and a failing expectation is an AssertionError carrying both sides for its diff.
 * Run: node --conditions=@protean-ts/source --import tsx --test test/node-test/*.test.ts
 */
import assert, { AssertionError } from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRejects, captureEvents, drain, given, stopHandlers } from '../../src/index.js';
import { Account, bank, Deposited, InsufficientFunds, Opened, Withdraw, Withdrawn } from '../support/bank.js';

// node:test's describe and it return promises its runner awaits itself.
void describe('@protean-ts/testing under node:test', () => {
  before(() =>
    bank.init({
      config: {
        event_processing: 'async',
        command_processing: 'async',
        databases: { default: { provider: 'memory' } },
        brokers: { default: { provider: 'inline' } },
      },
    }),
  );
  after(() => stopHandlers(bank));

  void it('checks the events a method call raises on a replayed aggregate', async () => {
    await given(Account, [Opened.create({ accountId: 'n1', owner: 'ann' }), Deposited.create({ accountId: 'n1', amount: 8 })])
      .when((account) => account.withdraw(8))
      .then([Withdrawn.create({ accountId: 'n1', amount: 8 })]);
  });

  void it('expects refusals', async () => {
    await given(Account, [Opened.create({ accountId: 'n2', owner: 'bo' })])
      .when((account) => account.withdraw(1))
      .thenFails(InsufficientFunds, /balance is 0/);
  });

  void it('fails with an AssertionError whose actual and expected differ where the events do', async () => {
    const error = await assertRejects(
      given(Account, [Opened.create({ accountId: 'n3', owner: 'cy' }), Deposited.create({ accountId: 'n3', amount: 8 })])
        .when((account) => account.withdraw(2))
        .then([Withdrawn.create({ accountId: 'n3', amount: 7 })]),
      AssertionError,
    );
    assert.deepEqual(error.actual, [{ type: 'Withdrawn', data: { accountId: 'n3', amount: 2 } }]);
    assert.deepEqual(error.expected, [{ type: 'Withdrawn', data: { accountId: 'n3', amount: 7 } }]);
  });

  void it('drains queued commands in process and captures what they committed', async () => {
    await given(Account, [Opened.create({ accountId: 'n4', owner: 'di' }), Deposited.create({ accountId: 'n4', amount: 3 })])
      .in(bank)
      .when((a) => a.deposit(0))
      .then([Deposited]);
    const captured = captureEvents(bank);
    await bank.process(Withdraw.create({ accountId: 'n4', amount: 3 }));
    await drain(bank);
    captured.assert([Withdrawn.create({ accountId: 'n4', amount: 3 })]);
  });
});
