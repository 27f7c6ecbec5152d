/**
 * Conformance: what happens to delivered messages: ack, nack, reclaim of idle pending messages
 * and the dead-letter stream (move, list, replay, purge).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Broker } from '@protean-ts/core';
import { sampleBrokerEnvelope, sleep, type ConformanceContext } from './broker-conformance-fixtures.js';

const NOW = { count: 100, blockMs: 0 };
const LONG_IDLE_MS = 60_000;

/** Publishes `n` messages and reads them all as `consumer` in group `g`. */
async function delivered(broker: Broker, stream: string, n: number, consumer = 'c1') {
  await broker.ensureGroup(stream, 'g');
  const envelopes = Array.from({ length: n }, (_, i) => sampleBrokerEnvelope(stream, i));
  await broker.publishBatch(envelopes.map((envelope) => ({ stream, envelope })));
  const messages = await broker.read(stream, 'g', consumer, NOW);
  expect(messages).toHaveLength(n);
  return messages;
}

export function pendingConformance(ctx: ConformanceContext): void {
  const canReclaim = ctx.claims('CONSUMER_GROUPS') && ctx.claims('RECLAIM_PENDING');
  /**
   * Where a given-up message shows up again: through `reclaim` on brokers that keep it pending
   * (Redis), through the next `read` on brokers that hand it back to the group (RabbitMQ).
   */
  const redelivered = (broker: Broker, stream: string, consumer: string, count: number) =>
    ctx.claims('RECLAIM_PENDING') ? broker.reclaim(stream, 'g', consumer, 0, count) : broker.read(stream, 'g', consumer, { count, blockMs: 0 });

  describe.runIf(canReclaim && ctx.claims('ACK_NACK'))('ack and nack', () => {
    afterEach(() => ctx.closeAll());

    it('removes acked messages from pending and counts only real acks', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [first, second] = await delivered(broker, stream, 2);
      expect(await broker.ack(stream, 'g', [first!.id])).toBe(1);
      expect(await broker.ack(stream, 'g', [first!.id])).toBe(0);
      expect(await broker.ack(stream, 'g', [])).toBe(0);
      const left = await broker.reclaim(stream, 'g', 'c2', 0, 10);
      expect(left.map((m) => m.id)).toEqual([second!.id]);
      expect(await broker.ack(stream, 'g', [second!.id])).toBe(1);
      expect(await broker.reclaim(stream, 'g', 'c2', 0, 10)).toEqual([]);
    });

    it('redelivers a nacked message at once through reclaim, counting the delivery', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message, other] = await delivered(broker, stream, 2);
      await broker.nack(stream, 'g', message!.id);
      const again = await broker.reclaim(stream, 'g', 'c2', LONG_IDLE_MS, 10);
      expect(again).toStrictEqual([{ ...message!, deliveryCount: 2 }]);
      expect(other!.deliveryCount).toBe(1);
    });

    it('touchPending keeps what a consumer holds from being reclaimed, without counting a delivery; only its own entries', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [held, other] = await delivered(broker, stream, 2);
      await sleep(80);
      expect(await broker.touchPending(stream, 'g', 'c2', [held!.id])).toBe(0);
      expect(await broker.touchPending(stream, 'g', 'c1', [held!.id, '999-0'])).toBe(1);
      expect(await broker.touchPending(stream, 'g', 'c1', [])).toBe(0);
      const taken = await broker.reclaim(stream, 'g', 'c2', 60, 10);
      expect(taken.map((m) => m.id)).toEqual([other!.id]);
      await broker.ack(stream, 'g', [other!.id]);
      await sleep(80);
      const later = await broker.reclaim(stream, 'g', 'c2', 60, 10);
      expect(later).toStrictEqual([{ ...held!, deliveryCount: 2 }]);
    });

    it('treats a nack of a message no longer pending as a no-op', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message] = await delivered(broker, stream, 1);
      await broker.ack(stream, 'g', [message!.id]);
      await broker.nack(stream, 'g', message!.id);
      await broker.nack(stream, 'g', '999-0');
      expect(await broker.reclaim(stream, 'g', 'c2', 0, 10)).toEqual([]);
    });

    // Regression: the Redis nack script used Lua's pcall, whose error is a string, and threw on
    // a group or stream that does not exist instead of doing nothing.
    it('treats a nack on a missing stream or group as a no-op', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await expect(broker.nack(stream, 'no-such-group', '1-0')).resolves.toBeUndefined();
      await delivered(broker, stream, 1);
      await expect(broker.nack(stream, 'no-such-group', '1-0')).resolves.toBeUndefined();
    });
  });

  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK') && !ctx.claims('RECLAIM_PENDING'))('ack and nack without reclaim', () => {
    afterEach(() => ctx.closeAll());

    it('counts only real acks, and an acked message is gone from the group', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [first, second] = await delivered(broker, stream, 2);
      expect(await broker.ack(stream, 'g', [first!.id])).toBe(1);
      expect(await broker.ack(stream, 'g', [first!.id])).toBe(0);
      expect(await broker.ack(stream, 'g', [])).toBe(0);
      expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 1, lag: 0, exists: true });
      expect(await broker.ack(stream, 'g', [second!.id])).toBe(1);
      expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 0, lag: 0, exists: true });
      expect(await broker.read(stream, 'g', 'c2', NOW)).toEqual([]);
    });

    it('hands a nacked message back to the group: the next read gets it, counting the delivery', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message, other] = await delivered(broker, stream, 2);
      await broker.nack(stream, 'g', message!.id);
      const again = await broker.read(stream, 'g', 'c2', NOW);
      expect(again).toStrictEqual([{ ...message!, deliveryCount: 2 }]);
      expect(other!.deliveryCount).toBe(1);
    });

    it('treats a nack of a message no longer pending, or on a missing group, as a no-op', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await expect(broker.nack(stream, 'no-such-group', '1-0')).resolves.toBeUndefined();
      const [message] = await delivered(broker, stream, 1);
      await broker.ack(stream, 'g', [message!.id]);
      await broker.nack(stream, 'g', message!.id);
      await broker.nack(stream, 'g', '999-0');
      expect(await broker.read(stream, 'g', 'c2', NOW)).toEqual([]);
    });
  });

  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK'))('one message in several groups', () => {
    afterEach(() => ctx.closeAll());

    // A process running two handlers of one stream holds both groups' copies of a message, under
    // one message id; an ack of one copy must neither miss nor settle the other (a RabbitMQ adapter
    // that kept its deliveries by id alone lost the first group's ack, and its prefetch filled up).
    it("acks each group's copy on its own while one instance holds both", async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'a');
      await broker.ensureGroup(stream, 'b');
      await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 0) });
      const inA = await broker.read(stream, 'a', 'c1', NOW);
      const inB = await broker.read(stream, 'b', 'c1', NOW);
      expect([inA.length, inB.length]).toEqual([1, 1]);
      expect(await broker.ack(stream, 'a', [inA[0]!.id])).toBe(1);
      expect(await broker.groupStatus(stream, 'b')).toMatchObject({ pending: 1, exists: true });
      expect(await broker.ack(stream, 'b', [inB[0]!.id])).toBe(1);
      for (const group of ['a', 'b']) expect(await broker.groupStatus(stream, group)).toMatchObject({ pending: 0, lag: 0, exists: true });
      await broker.close();
      // Settled for good: nothing comes back to either group once the instance is gone.
      const other = await ctx.open();
      for (const group of ['a', 'b']) expect(await other.read(stream, group, 'c2', NOW)).toEqual([]);
    });
  });

  describe.runIf(canReclaim)('reclaim', () => {
    afterEach(() => ctx.closeAll());

    it('takes over only messages idle longer than minIdleMs, with their envelope and a higher delivery count', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message] = await delivered(broker, stream, 1, 'crashed');
      expect(await broker.reclaim(stream, 'g', 'rescuer', LONG_IDLE_MS, 10)).toEqual([]);
      await sleep(150);
      const taken = await broker.reclaim(stream, 'g', 'rescuer', 100, 10);
      expect(taken).toStrictEqual([{ ...message!, deliveryCount: 2 }]);
      // Just reclaimed, so it is no longer idle for anyone else.
      expect(await broker.reclaim(stream, 'g', 'third', 100, 10)).toEqual([]);
    });

    it('takes at most count messages, oldest first', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const messages = await delivered(broker, stream, 5);
      const taken = await broker.reclaim(stream, 'g', 'c2', 0, 2);
      expect(taken.map((m) => m.id)).toEqual(messages.slice(0, 2).map((m) => m.id));
    });

    it('finds nothing on a stream or group that does not exist', async () => {
      const broker = await ctx.open();
      expect(await broker.reclaim(ctx.stream(), 'nobody', 'c', 0, 10)).toEqual([]);
    });
  });

  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK') && ctx.claims('DEAD_LETTER_QUEUE'))('dead letters', () => {
    afterEach(() => ctx.closeAll());

    it('moves a message to the dead-letter stream with why, where and how often, and acks it', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message] = await delivered(broker, stream, 1);
      const before = Date.now();
      await broker.deadLetter(stream, 'g', message!, 'TypeError: boom');
      expect(await redelivered(broker, stream, 'c2', 10)).toEqual([]);
      expect((await broker.groupStatus(stream, 'g')).pending).toBe(0);
      const [letter, ...rest] = await broker.listDeadLetters(stream);
      expect(rest).toEqual([]);
      expect(letter).toMatchObject({ originalId: message!.id, stream, group: 'g', error: 'TypeError: boom', deliveryCount: 1 });
      expect(letter!.envelope).toStrictEqual(message!.envelope);
      expect(Date.parse(letter!.failedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(typeof letter!.id).toBe('string');
    });

    it('records the delivery count of a message that was retried', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message] = await delivered(broker, stream, 1);
      await broker.nack(stream, 'g', message!.id);
      const [retried] = await redelivered(broker, stream, 'c1', 1);
      await broker.deadLetter(stream, 'g', retried!, 'still failing');
      expect((await broker.listDeadLetters(stream))[0]!.deliveryCount).toBe(2);
    });

    it('lists at most count dead letters, oldest first', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const messages = await delivered(broker, stream, 3);
      for (const m of messages) await broker.deadLetter(stream, 'g', m, 'x');
      const listed = await broker.listDeadLetters(stream, { count: 2 });
      expect(listed.map((l) => l.originalId)).toEqual(messages.slice(0, 2).map((m) => m.id));
      expect(await broker.listDeadLetters(ctx.stream())).toEqual([]);
    });

    it('replays chosen dead letters to their stream and removes only those', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const messages = await delivered(broker, stream, 3);
      for (const m of messages) await broker.deadLetter(stream, 'g', m, 'x');
      const letters = await broker.listDeadLetters(stream);
      expect(await broker.replayDeadLetters(stream, [letters[1]!.id, '1-999'])).toBe(1);
      expect((await broker.listDeadLetters(stream)).map((l) => l.id)).toEqual([letters[0]!.id, letters[2]!.id]);
      const redelivered = await broker.read(stream, 'g', 'c1', NOW);
      expect(redelivered.map((m) => m.envelope)).toStrictEqual([messages[1]!.envelope]);
      expect(redelivered[0]!.deliveryCount).toBe(1);
    });

    it('replays all dead letters in order when no ids are given', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const messages = await delivered(broker, stream, 3);
      for (const m of messages) await broker.deadLetter(stream, 'g', m, 'x');
      expect(await broker.replayDeadLetters(stream)).toBe(3);
      expect(await broker.listDeadLetters(stream)).toEqual([]);
      const redelivered = await broker.read(stream, 'g', 'c1', NOW);
      expect(redelivered.map((m) => m.envelope)).toStrictEqual(messages.map((m) => m.envelope));
      expect(await broker.replayDeadLetters(stream)).toBe(0);
    });

    it('purges the dead-letter stream and says how many it removed', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const messages = await delivered(broker, stream, 2);
      for (const m of messages) await broker.deadLetter(stream, 'g', m, 'x');
      expect(await broker.purgeDeadLetters(stream)).toBe(2);
      expect(await broker.listDeadLetters(stream)).toEqual([]);
      expect(await broker.purgeDeadLetters(stream)).toBe(0);
    });
  });
}
