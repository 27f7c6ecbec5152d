/** A projector's message during a rebuild waits (no attempt counted), resumes after it, and gives way to a stop. */
import { describe, expect, it } from 'vitest';
import { getLogger, ProjectionRebuildingError, type HandleOutcome } from '@protean-ts/core';
import { waitingOutRebuilds } from '../src/subscriptions/projection-rebuild-wait.js';
import { captureLogs } from './support/log-capture.js';

const refused = () => new ProjectionRebuildingError('AccountSummary', 'AccountSummaryProjector');

describe('waitingOutRebuilds', () => {
  it('runs again while the projection is rebuilt, then returns the outcome and logs the wait once and the resume', async () => {
    const logs = captureLogs();
    try {
      let calls = 0;
      const outcome = await waitingOutRebuilds(async (): Promise<HandleOutcome> => {
        calls += 1;
        if (calls <= 3) throw refused();
        return 'handled';
      }, getLogger('subscription'), new AbortController().signal, 1);
      expect([outcome, calls]).toEqual(['handled', 4]);
      expect(logs.records.filter((r) => r.msg === 'projection is being rebuilt; its projector waits')).toHaveLength(1);
      expect(logs.records.filter((r) => r.msg === 'projection rebuild ended; the projector resumes')).toHaveLength(1);
    } finally {
      logs.restore();
    }
  });

  it("a stopping subscription leaves the message unsettled ('early'), not failed", async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(waitingOutRebuilds(async () => { throw refused(); }, getLogger('subscription'), stop.signal, 1)).resolves.toBe('early');
  });

  it('other errors are the runner\'s to retry or dead-letter', async () => {
    await expect(waitingOutRebuilds(async () => { throw new Error('boom'); }, getLogger('subscription'), undefined, 1)).rejects.toThrow('boom');
  });
});
