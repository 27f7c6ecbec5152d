/**
 * captureEvents and drain on the embedded default (memory database, in-process broker), with
 * asynchronous commands and event handlers: drain runs them all in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureEvents, drain, given, stopHandlers } from '../src/index.js';
import { CommandRefusedError } from '@protean-ts/core';
import { Account, Audit, bank, Deposited, Opened, StatementLine, Withdraw, Withdrawn } from './support/bank.js';

describe('drain and captured events, embedded', () => {
  beforeAll(() =>
    bank.init({
      config: {
        event_processing: 'async',
        command_processing: 'async',
        databases: { default: { provider: 'memory' } },
        brokers: { default: { provider: 'inline' } },
        server: { stream_subscription: { max_retries: 1, retry_delay_seconds: 0.01 } },
      },
    }),
  );
  afterAll(() => stopHandlers(bank));

  it('runs queued commands and the event handlers they lead to until nothing is left', async () => {
    await given(Account, [Opened.create({ accountId: 'q1', owner: 'ann' }), Deposited.create({ accountId: 'q1', amount: 10 })])
      .in(bank)
      .when((a) => a.deposit(0))
      .then([Deposited]);
    const captured = captureEvents(bank);
    await bank.process(Withdraw.create({ accountId: 'q1', amount: 4 }));
    await bank.process(Withdraw.create({ accountId: 'q1', amount: 5 }));
    // Queued, not handled yet.
    expect(captured.events).toEqual([]);

    await drain(bank);

    captured.assert([Withdrawn.create({ accountId: 'q1', amount: 4 }), Withdrawn.create({ accountId: 'q1', amount: 5 })]);
    expect(captured.ofType(Withdrawn).map((e) => e.amount)).toEqual([4, 5]);
    const lines = await bank.repositoryFor(StatementLine).query({ filter: { accountId: 'q1' } });
    expect(lines.map((line) => line.amount).sort()).toEqual([-4, -5]);
    expect((await bank.repositoryFor(Account).get('q1')).balance).toBe(1);
    captured.stop();
  });

  it('returns an outcome across the in-process server when awaited', async () => {
    await given(Account, [Opened.create({ accountId: 'q2', owner: 'bo' }), Deposited.create({ accountId: 'q2', amount: 7 })])
      .in(bank)
      .when((a) => a.deposit(0))
      .then([Deposited]);
    await drain(bank);
    const balance = await bank.process<number>(Withdraw.create({ accountId: 'q2', amount: 2 }), { asynchronous: true, awaitOutcome: { timeoutMs: 20_000 } });
    expect(balance).toBe(5);
  });

  it('rejects the waiting sender of a command its subscription gave up on (retries spent, dead-lettered) with the last error', async () => {
    const outcome = bank.process(Audit.create({ accountId: 'q3' }), { asynchronous: true, awaitOutcome: { timeoutMs: 20_000 } });
    await expect(outcome).rejects.toBeInstanceOf(CommandRefusedError);
    await expect(outcome).rejects.toMatchObject({ errorName: 'Error', errorMessage: 'the auditor is out' });
  });
});
