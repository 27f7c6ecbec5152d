/**
 * The relay's back-pressure decisions, against a broker whose consumer lag the test sets: when a
 * check is due (the interval, or the room the last check saw used up), holding back past the
 * bound, resuming only at half of it, keeping the decision through a failed check, and how many
 * streams it remembers.
 */
import { describe, expect, it } from 'vitest';
import { getLogger, type Broker, type GroupLag, type OutboxRow } from '@protean-ts/core';
import { MAX_CHECKED_STREAMS } from '../src/index.js';
import { rowStream } from '../src/publish-claimed.js';
import { RelayBackPressure } from '../src/relay-back-pressure.js';
import { Waker } from '../src/waker.js';

/** The part of a broker back-pressure uses; `lag` is what every stream's one group has unfinished. */
function lagBroker() {
  const state = { lag: 0, fail: false, probed: [] as string[] };
  const broker = {
    name: 'lagging',
    provider: 'test',
    has: (capability: string) => capability === 'CONSUMER_LAG',
    consumerLag: async (stream: string): Promise<GroupLag[]> => {
      state.probed.push(stream);
      if (state.fail) throw new Error('broker unreachable');
      return [{ group: 'g', behind: state.lag }];
    },
  } as unknown as Broker;
  return { broker, state };
}

const rows = (n: number, stream = 's') => Array.from({ length: n }, () => ({ streamName: stream, partitionKey: 'k' }) as OutboxRow);
const HOUR = 3600;

describe('RelayBackPressure', () => {
  it('is off at 0, and then never asks the broker', async () => {
    const { broker, state } = lagBroker();
    const pressure = new RelayBackPressure(broker, { max_consumer_lag: 0, lag_check_interval: 1 }, getLogger('test'));
    pressure.published(rows(5), 1);
    expect(pressure.due()).toBe(false);
    expect(await pressure.holdsBack(new Waker())).toBe(false);
    expect(state.probed).toEqual([]);
    expect(pressure.status()).toBeNull();
  });

  it('is due again once the relay published the room the last check saw, not before', async () => {
    const { broker, state } = lagBroker();
    const pressure = new RelayBackPressure(broker, { max_consumer_lag: 100, lag_check_interval: HOUR }, getLogger('test'));
    pressure.published(rows(1), 1);
    state.lag = 70;
    expect(await pressure.holdsBack(new Waker())).toBe(false);
    // Room for 30 more below the bound: 29 published leave it not due, the 30th makes it due.
    pressure.published(rows(29), 1);
    expect(pressure.due()).toBe(false);
    pressure.published(rows(1), 1);
    expect(pressure.due()).toBe(true);
  });

  it('holds back past the bound, sleeping a check interval, and resumes only at half of it', async () => {
    const { broker, state } = lagBroker();
    const pressure = new RelayBackPressure(broker, { max_consumer_lag: 100, lag_check_interval: 0.01 }, getLogger('test'));
    pressure.published(rows(1), 1);
    state.lag = 101;
    expect(await pressure.holdsBack(new Waker())).toBe(true);
    expect(pressure.status()).toMatchObject({ heldBack: true, heldBackTimes: 1, worst: { stream: 's', group: 'g', behind: 101 } });
    state.lag = 80;
    expect(await pressure.holdsBack(new Waker())).toBe(true);
    state.lag = 50;
    expect(await pressure.holdsBack(new Waker())).toBe(false);
    expect(pressure.status()).toMatchObject({ heldBack: false, heldBackTimes: 1, worst: { behind: 50 } });
    expect(pressure.status()!.heldBackMs).toBeGreaterThan(0);
  });

  it('keeps its decision through a failed check and says why', async () => {
    const { broker, state } = lagBroker();
    const pressure = new RelayBackPressure(broker, { max_consumer_lag: 10, lag_check_interval: 0.01 }, getLogger('test'));
    pressure.published(rows(1), 1);
    state.lag = 20;
    expect(await pressure.holdsBack(new Waker())).toBe(true);
    state.fail = true;
    expect(await pressure.holdsBack(new Waker())).toBe(true);
    expect(pressure.status()).toMatchObject({ heldBack: true, checkError: 'broker unreachable' });
    state.fail = false;
    state.lag = 0;
    expect(await pressure.holdsBack(new Waker())).toBe(false);
    expect(pressure.status()!.checkError).toBeUndefined();
  });

  it('checks the partition streams rows went to, the most recent MAX_CHECKED_STREAMS of them', async () => {
    const { broker, state } = lagBroker();
    const pressure = new RelayBackPressure(broker, { max_consumer_lag: 10, lag_check_interval: HOUR }, getLogger('test'));
    for (let i = 0; i <= MAX_CHECKED_STREAMS; i++) pressure.published(rows(1, `s${i}`), 1);
    await pressure.holdsBack(new Waker());
    expect(state.probed).toHaveLength(MAX_CHECKED_STREAMS);
    expect(state.probed).not.toContain('s0');
    expect(state.probed.at(-1)).toBe(`s${MAX_CHECKED_STREAMS}`);

    // With partitions, the partition stream the row's key hashes to.
    const partitioned = new RelayBackPressure(broker, { max_consumer_lag: 10, lag_check_interval: HOUR }, getLogger('test'));
    const [row] = rows(1, 'orders');
    partitioned.published([row!], 4);
    state.probed.length = 0;
    await partitioned.holdsBack(new Waker());
    expect(state.probed).toEqual([rowStream(row!, 4)]);
    expect(state.probed[0]).not.toBe('orders');
  });
});
