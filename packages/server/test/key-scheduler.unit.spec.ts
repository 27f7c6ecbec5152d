/** KeyScheduler: per-key order, the concurrency bound, and a predecessor that arrives while its successor runs. */
import { describe, expect, it } from 'vitest';
import type { ReceivedMessage } from '@protean-ts/core';
import { KeyScheduler, type HeadResult, type Queued } from '../src/subscriptions/key-scheduler.js';
import { eventually } from './support/eventually.js';

const item = (key: string, sequence: number): Queued => ({
  key,
  sequence,
  message: { id: `${key}-${sequence}`, stream: 's', envelope: {} as ReceivedMessage['envelope'], deliveryCount: 1 },
});

describe('KeyScheduler', () => {
  it('regression: a predecessor added while its successor runs is tried first once the successor has to wait', async () => {
    const handled: number[] = [];
    let release: () => void = () => {};
    const firstRun = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const scheduler = new KeyScheduler(4, async (queued): Promise<HeadResult> => {
      runs += 1;
      if (runs === 1) await firstRun; // 7 is running when 6 arrives
      if (queued.sequence === 7 && !handled.includes(6)) return { done: false, afterMs: 60_000 };
      handled.push(queued.sequence);
      return { done: true };
    });
    scheduler.add(item('k', 7));
    await eventually(() => runs === 1);
    scheduler.add(item('k', 6));
    release();
    // Without re-sorting, 7 would wait its 60 s with 6 stuck behind it.
    await eventually(() => handled.length === 2, 2_000);
    expect(handled).toEqual([6, 7]);
    expect(scheduler.size).toBe(0);
  });

  it('runs at most `concurrency` keys at once and one message per key, in sequence order', async () => {
    let running = 0;
    let max = 0;
    const seen = new Map<string, number[]>();
    const scheduler = new KeyScheduler(3, async (queued) => {
      running += 1;
      max = Math.max(max, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      seen.set(queued.key, [...(seen.get(queued.key) ?? []), queued.sequence]);
      running -= 1;
      return { done: true };
    });
    for (const sequence of [1, 3, 2]) for (const key of ['a', 'b', 'c', 'd', 'e']) scheduler.add(item(key, sequence));
    await eventually(() => scheduler.size === 0);
    expect(max).toBe(3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) expect(seen.get(key)).toEqual([1, 2, 3]);
  });
});
