import { describe, expect, it } from 'vitest';
import { BatchPermits } from '../src/batch/batch-permits.js';

describe('BatchPermits', () => {
  it('lets half the pool (at least one connection) into batches at once and hands a released permit to the next in line', async () => {
    expect(BatchPermits.forPool(10).limit).toBe(5);
    expect(BatchPermits.forPool(3).limit).toBe(1);
    expect(BatchPermits.forPool(1).limit).toBe(1);

    const permits = new BatchPermits(2);
    await permits.acquire();
    await permits.acquire();
    const order: string[] = [];
    const third = permits.acquire().then(() => order.push('third'));
    const fourth = permits.acquire().then(() => order.push('fourth'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual([]);
    permits.release();
    await third;
    expect(order).toEqual(['third']);
    permits.release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    // Two held again (third and fourth): a fifth waits until one of them ends.
    let fifth = false;
    const waiting = permits.acquire().then(() => (fifth = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fifth).toBe(false);
    permits.release();
    await waiting;
    expect(fifth).toBe(true);
  });
});
