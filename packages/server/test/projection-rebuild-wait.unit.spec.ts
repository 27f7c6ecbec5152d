/**
 * A projector's message during a rebuild waits (no attempt counted), resumes after it, and gives
 * way to a stop; a subscription whose many messages wait together logs the wait and the resume
 * once per rebuild.
 */
import { describe, expect, it } from 'vitest';
import { getLogger, ProjectionRebuildingError, type HandleOutcome, type Logger } from '@protean-ts/core';
import { waitingOutRebuilds } from '../src/subscriptions/projection-rebuild-wait.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';

const refused = () => new ProjectionRebuildingError('AccountSummary', 'AccountSummaryProjector');
const WAITS = 'projection is being rebuilt; its projector waits';
const RESUMES = 'projection rebuild ended; the projector resumes';

/** A projection marked while `rebuilding` is true, and messages of subscriptions run against it. */
function rebuildingProjection() {
  const state = { rebuilding: true, refusals: new Map<number, number>() };
  let next = 0;
  const message = (log: Logger, signal = new AbortController().signal) => {
    const id = next++;
    return waitingOutRebuilds(
      async (): Promise<HandleOutcome> => {
        if (!state.rebuilding) return 'handled';
        state.refusals.set(id, (state.refusals.get(id) ?? 0) + 1);
        throw refused();
      },
      log,
      signal,
      1,
    );
  };
  /** Resolves once each of the first `count` messages has been refused twice: all of them wait. */
  const allWaiting = (count: number) => eventually(() => Array.from({ length: count }, (_, i) => state.refusals.get(i) ?? 0).every((n) => n >= 2));
  return { state, message, allWaiting };
}

describe('waitingOutRebuilds', () => {
  it('runs again while the projection is rebuilt, then returns the outcome and logs the wait once and the resume', async () => {
    const logs = captureLogs();
    try {
      let calls = 0;
      const outcome = await waitingOutRebuilds(
        async (): Promise<HandleOutcome> => {
          calls += 1;
          if (calls <= 3) throw refused();
          return 'handled';
        },
        getLogger('subscription'),
        new AbortController().signal,
        1,
      );
      expect([outcome, calls]).toEqual(['handled', 4]);
      expect(logs.records.filter((r) => r.msg === 'projection is being rebuilt; its projector waits')).toHaveLength(1);
      expect(logs.records.filter((r) => r.msg === 'projection rebuild ended; the projector resumes')).toHaveLength(1);
    } finally {
      logs.restore();
    }
  });

  it('many messages of one subscription waiting out a rebuild log the wait once and the resume once; the next rebuild logs them again', async () => {
    const logs = captureLogs();
    try {
      const { state, message, allWaiting } = rebuildingProjection();
      const log = getLogger('subscription').child({ subscription: 'AccountSummaryProjector-ledger::account' });
      const first = Array.from({ length: 30 }, () => message(log));
      await allWaiting(30);
      state.rebuilding = false;
      expect(await Promise.all(first)).toEqual(Array(30).fill('handled'));
      expect(logs.records.filter((r) => r.msg === WAITS)).toEqual([
        expect.objectContaining({
          subscription: 'AccountSummaryProjector-ledger::account',
          projection: 'AccountSummary',
          projector: 'AccountSummaryProjector',
        }),
      ]);
      expect(logs.records.filter((r) => r.msg === RESUMES)).toEqual([
        expect.objectContaining({
          subscription: 'AccountSummaryProjector-ledger::account',
          projection: 'AccountSummary',
          projector: 'AccountSummaryProjector',
        }),
      ]);
      expect(logs.records.map((r) => r.msg)).toEqual([WAITS, RESUMES]);

      state.rebuilding = true;
      state.refusals.clear();
      const second = Array.from({ length: 5 }, () => message(log));
      await eventually(() => state.refusals.size === 5);
      state.rebuilding = false;
      await Promise.all(second);
      expect(logs.records.map((r) => r.msg)).toEqual([WAITS, RESUMES, WAITS, RESUMES]);
    } finally {
      logs.restore();
    }
  });

  it('each subscription logs its own wait and resume', async () => {
    const logs = captureLogs();
    try {
      const { state, message, allWaiting } = rebuildingProjection();
      const account = getLogger('subscription').child({ subscription: 'AccountSummaryProjector-ledger::account' });
      const transfer = getLogger('subscription').child({ subscription: 'AccountSummaryProjector-ledger::transfer' });
      const messages = [account, transfer, account, transfer, account].map((log) => message(log));
      await allWaiting(5);
      state.rebuilding = false;
      await Promise.all(messages);
      const logged = (msg: string) =>
        logs.records
          .filter((r) => r.msg === msg)
          .map((r) => r.subscription)
          .sort();
      expect(logged(WAITS)).toEqual(['AccountSummaryProjector-ledger::account', 'AccountSummaryProjector-ledger::transfer']);
      expect(logged(RESUMES)).toEqual(['AccountSummaryProjector-ledger::account', 'AccountSummaryProjector-ledger::transfer']);
    } finally {
      logs.restore();
    }
  });

  it('a subscription stopped while its messages wait logs no resume; waiting again after the restart logs the wait again', async () => {
    const logs = captureLogs();
    try {
      const { state, message, allWaiting } = rebuildingProjection();
      const log = getLogger('subscription');
      const stop = new AbortController();
      const waiting = [message(log, stop.signal), message(log, stop.signal)];
      await allWaiting(2);
      stop.abort();
      expect(await Promise.all(waiting)).toEqual(['early', 'early']);
      expect(logs.records.map((r) => r.msg)).toEqual([WAITS]);
      const again = message(log);
      await eventually(() => state.refusals.has(2));
      state.rebuilding = false;
      expect(await again).toBe('handled');
      expect(logs.records.map((r) => r.msg)).toEqual([WAITS, WAITS, RESUMES]);
    } finally {
      logs.restore();
    }
  });

  it("a stopping subscription leaves the message unsettled ('early'), not failed", async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(
      waitingOutRebuilds(
        async () => {
          throw refused();
        },
        getLogger('subscription'),
        stop.signal,
        1,
      ),
    ).resolves.toBe('early');
  });

  it("other errors are the runner's to retry or dead-letter", async () => {
    await expect(
      waitingOutRebuilds(
        async () => {
          throw new Error('boom');
        },
        getLogger('subscription'),
        undefined,
        1,
      ),
    ).rejects.toThrow('boom');
  });
});
