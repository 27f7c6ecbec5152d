/**
 * The consumer guarantees on the memory database and the inline broker: per-key order under
 * concurrency, duplicates skipped by the inbox, early messages waiting for their predecessor,
 * gaps passed after gap_timeout_seconds, permanent errors not retried, dead letters releasing
 * their key, other types keeping their turn, and a graceful stop handing back what was read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, positionOf, positionPassedEnvelope, ValidationError, type LogRecord } from '@protean-ts/core';
import { Engine } from '../src/engine/engine.js';
import { makeCounterDomain } from './support/counter-fixture.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';

const config = (subscription: Record<string, unknown> = {}, inbox: Record<string, unknown> = {}) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  event_processing: 'async',
  inbox,
  server: {
    health: { port: 0 },
    stream_subscription: {
      blocking_timeout_ms: 50,
      max_retries: 2,
      retry_delay_seconds: 0.01,
      enable_dlq: true,
      concurrency: 8,
      gap_timeout_seconds: 30,
      ...subscription,
    },
  },
});

class OrderAlreadyShipped extends PermanentError {}

describe('consumer guarantees (memory database, inline broker)', () => {
  let engine: Engine | null = null;
  let logs: ReturnType<typeof captureLogs>;
  let counter: ReturnType<typeof makeCounterDomain>;
  let seq = 0;

  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    logs.restore();
  });

  async function start(subscription: Record<string, unknown> = {}, inbox: Record<string, unknown> = {}): Promise<void> {
    seq += 1;
    counter = makeCounterDomain(`Counters${seq}`, config(subscription, inbox));
    engine = new Engine(counter.domain, { health: false });
    await engine.start();
  }
  const broker = () => counter.domain.brokers.get('default')!;
  const publish = (...envelopes: ReturnType<typeof counter.ticked>[]) =>
    broker().publishBatch(envelopes.map((envelope) => ({ stream: counter.stream, envelope })));
  const tally = () => engine!.subscriptionStatuses().find((s) => s.name === 'Tally')!;
  const logged = (msg: string): LogRecord[] => logs.records.filter((r) => r.msg === msg);
  const drained = async () => (await broker().groupStatus(counter.stream, 'Tally')).pending === 0 && tally().inFlight === 0;

  it('handles each key in order while up to `concurrency` keys run at once, and never one key twice at once', async () => {
    await start({ concurrency: 8 });
    counter.probe.jitterMs = 3;
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    // Interleaved like concurrent producers: every key's messages spread over the stream.
    for (let n = 1; n <= 15; n++) await publish(...keys.map((key) => counter.ticked(key, n)));
    await eventually(() => keys.every((key) => counter.probe.seen.get(key)?.length === 15), 20_000);
    for (const key of keys) expect(counter.probe.seen.get(key)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(counter.probe.maxRunning).toBeGreaterThan(1);
    expect(counter.probe.maxRunning).toBeLessThanOrEqual(8);
    expect(counter.probe.overlaps).toBe(0);
  });

  it('with concurrency = 1 one message at a time', async () => {
    await start({ concurrency: 1 });
    counter.probe.jitterMs = 2;
    await publish(...['a', 'b', 'c', 'd'].map((key) => counter.ticked(key, 1)));
    await eventually(() => counter.probe.runs === 4);
    expect(counter.probe.maxRunning).toBe(1);
  });

  it('skips a redelivered message as a duplicate: the handler runs once', async () => {
    await start();
    const first = counter.ticked('a', 1);
    await publish(first, counter.ticked('a', 2), first);
    await eventually(async () => (await drained()) && tally().duplicates === 1);
    expect(counter.probe.seen.get('a')).toEqual([1, 2]);
    expect(counter.probe.runs).toBe(2);
  });

  it('holds a message that overtook its predecessor until the predecessor is handled', async () => {
    await start();
    await publish(counter.ticked('a', 2), counter.ticked('b', 1));
    await eventually(() => counter.probe.seen.get('b')?.length === 1);
    await eventually(() => tally().waits > 0);
    expect(counter.probe.seen.get('a')).toBeUndefined();
    await publish(counter.ticked('a', 1));
    await eventually(() => counter.probe.seen.get('a')?.length === 2);
    expect(counter.probe.seen.get('a')).toEqual([1, 2]);
  });

  it('passes a gap that stays open past gap_timeout_seconds with an ERROR, and handles the missing message late if it comes', async () => {
    await start({ gap_timeout_seconds: 0.3 });
    await publish(counter.ticked('a', 1), counter.ticked('a', 3));
    await eventually(() => counter.probe.seen.get('a')?.length === 2, 5_000);
    expect(counter.probe.seen.get('a')).toEqual([1, 3]);
    // Counters move after the commit and ack, a moment after the handler returned.
    await eventually(() => tally().gapsPassed === 1);
    const [passed] = logged('passed a gap: the predecessors of this message did not arrive within gap_timeout_seconds; handled it without them');
    expect(passed).toMatchObject({ level: 'error', sequence: 3 });
    await publish(counter.ticked('a', 2));
    await eventually(() => counter.probe.seen.get('a')?.length === 3);
    expect(counter.probe.seen.get('a')).toEqual([1, 3, 2]);
    await eventually(() => tally().late === 1);
  });

  it('dead-letters a ValidationError or a PermanentError on the first failure; retries a plain Error max_retries times', async () => {
    await start({ max_retries: 2 });
    counter.probe.failWith.set(1, () => new ValidationError({ n: ['is refused'] }, 'Tally'));
    counter.probe.failWith.set(2, () => new OrderAlreadyShipped('already shipped'));
    counter.probe.failWith.set(3, () => new Error('flaky database'));
    await publish(counter.ticked('a', 1, 1), counter.ticked('b', 2, 1), counter.ticked('c', 3, 1));
    await eventually(() => tally().deadLettered === 3);
    // a and b: one run each; c: 1 + max_retries runs.
    expect(counter.probe.runs).toBe(1 + 1 + 3);
    const letters = await broker().listDeadLetters(counter.stream);
    expect(letters.map((l) => l.error)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('ValidationError'),
        expect.stringContaining('already shipped'),
        expect.stringContaining('flaky database'),
      ]),
    );
  });

  it('a dead-lettered message releases its key: the successors are handled, and a replay is handled once, late', async () => {
    await start();
    counter.probe.failWith.set(1, () => new OrderAlreadyShipped('refused'));
    await publish(counter.ticked('a', 1), counter.ticked('a', 2), counter.ticked('a', 3));
    await eventually(() => counter.probe.seen.get('a')?.length === 2);
    expect(counter.probe.seen.get('a')).toEqual([2, 3]);
    counter.probe.failWith.clear();
    expect(await broker().replayDeadLetters(counter.stream)).toBe(1);
    await eventually(() => counter.probe.seen.get('a')?.length === 3);
    expect(counter.probe.seen.get('a')).toEqual([2, 3, 1]);
    await eventually(drained);
    expect(tally().late).toBe(1);
  });

  it('a marker for a message the outbox abandoned moves its key past it at once; the message, retried later, is handled late', async () => {
    await start();
    const abandoned = counter.ticked('a', 2);
    const marker = positionPassedEnvelope({
      position: positionOf(abandoned)!,
      messageId: abandoned.metadata.headers.id,
      messageType: abandoned.metadata.headers.type,
      streamCategory: counter.stream,
      reason: 'abandoned in the outbox: too large',
    });
    await publish(counter.ticked('a', 1), marker, counter.ticked('a', 3));
    await eventually(() => counter.probe.seen.get('a')?.length === 2);
    expect(counter.probe.seen.get('a')).toEqual([1, 3]);
    expect(tally().passedAbandoned).toBe(1);
    expect(tally().gapsPassed).toBe(0);
    await publish(abandoned);
    await eventually(() => counter.probe.seen.get('a')?.length === 3);
    expect(counter.probe.seen.get('a')).toEqual([1, 3, 2]);
  });

  it('messages of types the handler does not handle keep their turn in the key', async () => {
    await start();
    await publish(counter.ticked('a', 1, 1), counter.noted('a', 2), counter.ticked('a', 3, 3), counter.noted('a', 4), counter.ticked('a', 5, 5));
    await eventually(() => counter.probe.seen.get('a')?.length === 3);
    expect(counter.probe.seen.get('a')).toEqual([1, 3, 5]);
    await eventually(drained);
    expect(tally().skipped).toBe(2);
    expect(tally().waits).toBe(0);
  });

  it('without the inbox there is neither order nor deduplication (what the inbox adds)', async () => {
    await start({}, { enabled: false });
    const first = counter.ticked('a', 1);
    await publish(counter.ticked('a', 2), first, first);
    await eventually(() => counter.probe.runs === 3);
    expect(counter.probe.seen.get('a')).toEqual([2, 1, 1]);
  });

  it('a graceful stop lets running messages finish and gives back the ones only read', async () => {
    await start({ concurrency: 1 });
    counter.probe.jitterMs = 50;
    await publish(...Array.from({ length: 10 }, (_, i) => counter.ticked(`k${i}`, 1)));
    await eventually(() => counter.probe.runs >= 1);
    await engine!.stop();
    engine = null;
    const handled = counter.probe.seen.size;
    expect(handled).toBeLessThan(10);
    expect(counter.probe.running).toBe(0);
    // Everything read and not handled went back to the group (nack: another consumer takes it at once).
    const givenBack = logged('stopping: handed unprocessed messages back to the group').reduce((n, r) => n + Number(r.count), 0);
    expect(givenBack).toBe(10 - handled);
  });
});
