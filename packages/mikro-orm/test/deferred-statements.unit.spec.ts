/**
 * The statements a transaction keeps for its commit (deferred-statements.ts): flushes that ride
 * with the COMMIT go out together in one round trip, after the others; a failure reaches every
 * rider, and the error reported is the one a rider translated.
 */
import { describe, expect, it } from 'vitest';
import { TransactionStateError } from '@protean-ts/core';
import { runDeferred, type CommittingRun, type Deferred, type RidingStatement } from '../src/deferred-statements.js';
import type { DeferredFlush, SqlExecutor } from '../src/sql-executor.js';

const sent: string[] = [];
const executor: SqlExecutor = {
  qualify: (table) => table,
  execute: async (sql) => {
    sent.push(`alone: ${sql}`);
    return { rows: [], rowCount: 0 };
  },
};

function flush(sql: string, ridesWithCommit: boolean, translate?: (error: unknown) => Error): DeferredFlush<string> {
  const run = async (into: SqlExecutor, items: readonly string[]) => {
    try {
      await into.execute(`${sql}(${items.join(',')})`);
    } catch (error) {
      throw translate?.(error) ?? error;
    }
  };
  return Object.assign(run, { ridesWithCommit });
}

function deferred(...entries: [DeferredFlush<string>, string[]][]): Map<object, Deferred> {
  return new Map(entries.map(([f, items]) => [{}, { items, flush: f as DeferredFlush<unknown> }]));
}

describe('statements deferred to the commit', () => {
  it('runs the other flushes first, then every rider with the COMMIT in one call, in the order deferred', async () => {
    sent.length = 0;
    const pipelines: RidingStatement[][] = [];
    const withCommit: CommittingRun = async (statements) => {
      pipelines.push([...statements]);
      return statements.map(() => ({ rows: [], rowCount: 1 }));
    };
    const committed = await runDeferred(
      deferred([flush('advance', true), ['a:2']], [flush('note', false), ['n']], [flush('append', true), ['r1', 'r2']]),
      executor,
      withCommit,
    );
    expect(committed).toBe(true);
    expect(sent).toEqual(['alone: note(n)']);
    expect(pipelines.map((statements) => statements.map((s) => s.sql))).toEqual([['advance(a:2)', 'append(r1,r2)']]);
  });

  it('without a committing run (an EntityManager commits) riders run as plain statements and the COMMIT is left to the caller', async () => {
    sent.length = 0;
    expect(await runDeferred(deferred([flush('append', true), ['r']]), executor, undefined)).toBe(false);
    expect(sent).toEqual(['alone: append(r)']);
  });

  it('reports the error a rider translated, not the database error every rider got', async () => {
    const database = new Error('invalid input syntax for type integer');
    const translated = new Error('the key had moved');
    const failing: CommittingRun = () => Promise.reject(database);
    await expect(runDeferred(deferred([flush('append', true), ['r']], [flush('advance', true, () => translated), ['a:2']]), executor, failing)).rejects.toBe(
      translated,
    );
    await expect(runDeferred(deferred([flush('append', true), ['r']]), executor, failing)).rejects.toBe(database);
  });

  it('sends nothing when a rider fails before its statement or does not run one at once', async () => {
    let calls = 0;
    const withCommit: CommittingRun = async (statements) => {
      calls++;
      return statements.map(() => ({ rows: [], rowCount: 0 }));
    };
    const refusedEarly = Object.assign(
      async () => {
        throw new Error('positions 1 and 3 are not consecutive');
      },
      { ridesWithCommit: true },
    );
    await expect(runDeferred(deferred([flush('append', true), ['r']], [refusedEarly, ['x']]), executor, withCommit)).rejects.toThrow('not consecutive');
    const late = Object.assign(
      async (into: SqlExecutor) => {
        await Promise.resolve();
        await into.execute('late');
      },
      { ridesWithCommit: true },
    );
    await expect(runDeferred(deferred([late, ['x']]), executor, withCommit)).rejects.toThrow(TransactionStateError);
    expect(calls).toBe(0);
  });
});
