/**
 * LanedSubscription: what each lane's loop may run at once (the live lane everything, another lane
 * its share, at least one), and one status over the lanes (the live loop's identity, counters and
 * messages in flight added up, running only when every lane runs).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '@protean-ts/core/config';
import { laneBudget, LanedSubscription } from '../src/subscriptions/laned-subscription.js';
import { newCounters } from '../src/subscriptions/subscription-lifecycle.js';
import type { Subscription, SubscriptionStatus } from '../src/subscriptions/subscription-status.js';

const settings = defaultConfig().server.stream_subscription;

function fakeLoop(stream: string, state: SubscriptionStatus['state'], handled: number, inFlight: number): Subscription & { calls: string[] } {
  const calls: string[] = [];
  return {
    name: 'Recorder',
    calls,
    start: () => void calls.push('start'),
    stop: async () => void calls.push('stop'),
    finished: async () => void calls.push('finished'),
    status: () => ({
      ...newCounters(),
      name: 'Recorder',
      kind: 'stream',
      stream,
      group: 'Recorder',
      broker: 'default',
      state,
      lastError: null,
      inFlight,
      handled,
    }),
  };
}

describe('laneBudget', () => {
  it('gives the live lane the whole concurrency and read-ahead', () => {
    expect(laneBudget('live', 0.25, { settings: { ...settings, concurrency: 32 }, batchSize: 100 })).toEqual({
      settings: { ...settings, concurrency: 32 },
      batchSize: 100,
    });
  });

  it('gives another lane ceil(share × each), at least 1', () => {
    expect(laneBudget('backfill', 0.25, { settings: { ...settings, concurrency: 32 }, batchSize: 100 })).toEqual({
      settings: { ...settings, concurrency: 8 },
      batchSize: 25,
    });
    expect(laneBudget('backfill', 0.25, { settings: { ...settings, concurrency: 3 }, batchSize: 10 })).toEqual({
      settings: { ...settings, concurrency: 1 },
      batchSize: 3,
    });
    expect(laneBudget('backfill', 0.01, { settings: { ...settings, concurrency: 1 }, batchSize: 1 })).toEqual({
      settings: { ...settings, concurrency: 1 },
      batchSize: 1,
    });
  });
});

describe('LanedSubscription', () => {
  it('starts, stops and waits for every lane, and reports them as one subscription on the live stream', async () => {
    const live = fakeLoop('shop::order', 'running', 3, 1);
    const backfill = fakeLoop('shop::order:backfill', 'running', 40, 5);
    const sub = new LanedSubscription([
      { lane: 'live', loop: live },
      { lane: 'backfill', loop: backfill },
    ]);
    sub.start();
    expect(sub.status()).toMatchObject({ name: 'Recorder', stream: 'shop::order', state: 'running', handled: 43, inFlight: 6, lanes: ['backfill'] });
    await sub.stop();
    await sub.finished();
    expect(live.calls).toEqual(['start', 'stop', 'finished']);
    expect(backfill.calls).toEqual(['start', 'stop', 'finished']);
  });

  it('is not running while one lane backs off', () => {
    const sub = new LanedSubscription([
      { lane: 'live', loop: fakeLoop('s', 'running', 0, 0) },
      { lane: 'backfill', loop: fakeLoop('s:backfill', 'backing-off', 0, 0) },
    ]);
    expect(sub.status().state).toBe('backing-off');
  });

  it('refuses lanes that do not start with live', () => {
    expect(() => new LanedSubscription([{ lane: 'backfill', loop: fakeLoop('s:backfill', 'running', 0, 0) }])).toThrow(/live lane first/);
  });
});
