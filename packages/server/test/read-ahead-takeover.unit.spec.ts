/**
 * The read-ahead bound holds with takeovers too: a live consumer whose handler is slow, in a
 * group where a stopped consumer left many messages pending, takes them over only as far as
 * twice `messages_per_tick` held in all, instead of one full batch after another. On the inline
 * broker (it reclaims like Redis), so the bound is checked without timing on a shared server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, getLogger, InlineBroker, systemClock, type HandleOutcome } from '@protean-ts/core';
import { sampleBrokerEnvelope } from '@protean-ts/conformance';
import { ConsumerLoop } from '../src/subscriptions/consumer-loop.js';

const STREAM = 'shop::order';
const BATCH = 10;
const LEFT_PENDING = 100;
const IDLE_MS = 200;

describe('read-ahead bound with takeovers (inline broker)', () => {
  let loop: ConsumerLoop | null = null;
  afterEach(async () => {
    await loop?.stop();
    loop = null;
  });

  it(`holds at most 2 × messages_per_tick while taking over ${LEFT_PENDING} pending messages of a stopped consumer`, async () => {
    const broker = new InlineBroker('takeover');
    await broker.connect();
    await broker.ensureGroup(STREAM, 'g');
    await broker.publishBatch(Array.from({ length: LEFT_PENDING + 50 }, (_, i) => ({ stream: STREAM, envelope: sampleBrokerEnvelope(STREAM, i) })));
    // A consumer that read these and stopped without acking: they stay pending for the group.
    expect(await broker.read(STREAM, 'g', 'stopped', { count: LEFT_PENDING, blockMs: 0 })).toHaveLength(LEFT_PENDING);
    // Idle past the reclaim bound, so the live consumer takes them over from its first look.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 50));

    let handled = 0;
    loop = new ConsumerLoop({
      name: 'Slow',
      kind: 'broker',
      broker,
      stream: STREAM,
      group: 'g',
      consumer: 'live',
      handle: async (): Promise<HandleOutcome> => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        handled += 1;
        return 'handled';
      },
      jumpOver: async () => 'skipped',
      settings: { ...defaultConfig().server.stream_subscription, concurrency: 2, blocking_timeout_ms: 20 },
      inbox: null,
      batchSize: BATCH,
      tickIntervalMs: 10,
      reclaimIdleMs: IDLE_MS,
      reclaimIntervalMs: 5,
      logger: getLogger('test', {}),
      clock: systemClock,
    });
    loop.start();
    let held = 0;
    while (handled < LEFT_PENDING + 50) {
      held = Math.max(held, loop.status().readAhead!.held);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // Takeovers did come on top of the reads (more than one batch held at times), but never past the bound.
    expect(held).toBeGreaterThan(BATCH);
    expect(held).toBeLessThanOrEqual(2 * BATCH);
    expect(loop.status().readAhead!.bound).toBe(2 * BATCH);
  }, 30_000);
});
