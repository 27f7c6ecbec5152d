/**
 * Conformance: publishing and reading through consumer groups: exact envelopes, batch order,
 * group isolation, consumers sharing a group, and blocking reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Broker, ReceivedMessage } from '@protean-ts/core';
import { sampleBrokerEnvelope, sleep, type ConformanceContext } from './broker-conformance-fixtures.js';

const NOW = { count: 100, blockMs: 0 };

async function publishMany(broker: Broker, stream: string, n: number) {
  const envelopes = Array.from({ length: n }, (_, i) => sampleBrokerEnvelope(stream, i));
  const ids = await broker.publishBatch(envelopes.map((envelope) => ({ stream, envelope })));
  return { envelopes, ids };
}

const idsOf = (messages: ReceivedMessage[]) => messages.map((m) => m.id);

export function deliveryConformance(ctx: ConformanceContext): void {
  describe.runIf(ctx.claims('PUBLISH') && ctx.claims('CONSUMER_GROUPS'))('publish and read', () => {
    afterEach(() => ctx.closeAll());

    it('delivers the envelope exactly as published', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const envelope = sampleBrokerEnvelope(stream, 7);
      const expected = structuredClone(envelope);
      await broker.ensureGroup(stream, 'g');
      const id = await broker.publish({ stream, envelope });
      (envelope.data as Record<string, unknown>).orderId = 'mutated after publish';
      const [message, ...rest] = await broker.read(stream, 'g', 'c1', NOW);
      expect(rest).toEqual([]);
      expect(message).toStrictEqual({ id, stream, envelope: expected, deliveryCount: 1 });
    });

    it('publishes a batch in order, routing each message to its own stream', async () => {
      const broker = await ctx.open();
      const a = ctx.stream('a');
      const b = ctx.stream('b');
      const batch = [0, 1, 2, 3, 4, 5].map((i) => ({ stream: i % 2 ? b : a, envelope: sampleBrokerEnvelope(i % 2 ? b : a, i) }));
      const ids = await broker.publishBatch(batch);
      expect(ids).toHaveLength(6);
      // Ids are unique within a stream (different streams may reuse one, as Redis does).
      expect(new Set([ids[0], ids[2], ids[4]]).size).toBe(3);
      const fromA = await broker.read(a, 'g', 'c', NOW);
      const fromB = await broker.read(b, 'g', 'c', NOW);
      expect(fromA.map((m) => m.envelope)).toStrictEqual([batch[0], batch[2], batch[4]].map((m) => m!.envelope));
      expect(fromB.map((m) => m.envelope)).toStrictEqual([batch[1], batch[3], batch[5]].map((m) => m!.envelope));
      expect(idsOf(fromA)).toEqual([ids[0], ids[2], ids[4]]);
      expect(idsOf(fromB)).toEqual([ids[1], ids[3], ids[5]]);
      expect(await broker.publishBatch([])).toEqual([]);
    });

    it('starts a new group at the oldest message, so nothing published earlier is missed', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const { ids } = await publishMany(broker, stream, 3);
      await broker.ensureGroup(stream, 'late');
      expect(idsOf(await broker.read(stream, 'late', 'c', NOW))).toEqual(ids);
    });

    it('creates a missing group on read', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const { ids } = await publishMany(broker, stream, 2);
      expect(idsOf(await broker.read(stream, 'never-ensured', 'c', NOW))).toEqual(ids);
    });

    it('keeps a cursor per group, and ensureGroup does not reset it', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g1');
      await broker.ensureGroup(stream, 'g2');
      const { ids } = await publishMany(broker, stream, 4);
      expect(idsOf(await broker.read(stream, 'g1', 'c', { count: 3, blockMs: 0 }))).toEqual(ids.slice(0, 3));
      await broker.ensureGroup(stream, 'g1');
      expect(idsOf(await broker.read(stream, 'g2', 'c', NOW))).toEqual(ids);
      expect(idsOf(await broker.read(stream, 'g1', 'c', NOW))).toEqual(ids.slice(3));
      expect(await broker.read(stream, 'g1', 'c', NOW)).toEqual([]);
    });

    it('shares a group between consumers without duplicates', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      const { ids } = await publishMany(broker, stream, 10);
      const first = await broker.read(stream, 'g', 'c1', { count: 4, blockMs: 0 });
      const second = await broker.read(stream, 'g', 'c2', NOW);
      expect(first).toHaveLength(4);
      expect([...idsOf(first), ...idsOf(second)]).toEqual(ids);
      expect(await broker.read(stream, 'g', 'c1', NOW)).toEqual([]);
      expect(await broker.read(stream, 'g', 'c2', NOW)).toEqual([]);
    });

    it("reports a group's pending and undelivered counts", async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 0, lag: 0, exists: false });
      await broker.ensureGroup(stream, 'g');
      const { ids } = await publishMany(broker, stream, 3);
      expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 0, lag: 3, exists: true });
      await broker.read(stream, 'g', 'c', { count: 2, blockMs: 0 });
      expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 2, lag: 1, exists: true });
      expect(await broker.groupStatus(stream, 'other')).toMatchObject({ pending: 0, lag: 0, exists: false });
      if (ctx.claims('ACK_NACK')) {
        await broker.ack(stream, 'g', ids.slice(0, 2));
        await broker.read(stream, 'g', 'c', NOW);
        expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 1, lag: 0, exists: true });
      }
    });

    it('returns at once with nothing to read when blockMs is 0', async () => {
      const broker = await ctx.open();
      expect(await broker.read(ctx.stream(), 'g', 'c', NOW)).toEqual([]);
    });
  });

  describe.runIf(ctx.claims('BLOCKING_READ'))('blocking read', () => {
    afterEach(() => ctx.closeAll());

    // The 20 s block outlasts the 10 s test timeout: a read that does not wake fails the test.
    it('wakes when a message is published, and publishing is not held up by the blocked read', { timeout: 10_000 }, async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      const reading = broker.read(stream, 'g', 'c', { count: 10, blockMs: 20_000 });
      await sleep(150);
      const envelope = sampleBrokerEnvelope(stream, 1);
      const id = await broker.publish({ stream, envelope });
      const messages = await reading;
      expect(messages.map((m) => [m.id, m.envelope])).toEqual([[id, envelope]]);
    });

    it('returns nothing once blockMs passes without a message', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      expect(await broker.read(stream, 'g', 'c', { count: 10, blockMs: 200 })).toEqual([]);
    });

    it('serves several blocked readers of one group without duplicates', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      const readers = [1, 2, 3].map((n) => broker.read(stream, 'g', `c${n}`, { count: 10, blockMs: 600 }));
      await sleep(150);
      const { ids } = await publishMany(broker, stream, 5);
      const got = idsOf((await Promise.all(readers)).flat());
      // What the blocked readers did not take is read on (a broker that pushes, like RabbitMQ,
      // may still be delivering it under load); duplicates would show as extra ids.
      const deadline = Date.now() + 10_000;
      while (got.length < ids.length && Date.now() < deadline) got.push(...idsOf(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 300 })));
      expect(got.sort()).toEqual([...ids].sort());
    });

    it('lets close() end a blocked read with no messages', { timeout: 10_000 }, async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      const reading = broker.read(stream, 'g', 'c', { count: 10, blockMs: 20_000 });
      await sleep(150);
      await broker.close();
      expect(await reading).toEqual([]);
    });
  });

  describe.runIf(ctx.claims('DISTRIBUTED'))('shared between instances', () => {
    afterEach(() => ctx.closeAll());

    it('delivers what one instance publishes to a reader on another, once per group', async () => {
      const [publisher, readerA, readerB] = [await ctx.open(), await ctx.open(), await ctx.open()];
      const stream = ctx.stream();
      await readerA.ensureGroup(stream, 'g');
      const { ids } = await publishMany(publisher, stream, 4);
      const a = await readerA.read(stream, 'g', 'a', { count: 2, blockMs: 0 });
      const b = await readerB.read(stream, 'g', 'b', NOW);
      expect([...idsOf(a), ...idsOf(b)]).toEqual(ids);
    });
  });

  describe.runIf(ctx.claims('DURABLE'))('durable', () => {
    afterEach(() => ctx.closeAll());

    it('keeps messages and pending entries after the publishing instance closes', async () => {
      const first = await ctx.open();
      const stream = ctx.stream();
      const { ids } = await publishMany(first, stream, 2);
      await first.read(stream, 'g', 'c', { count: 1, blockMs: 0 });
      await first.close();
      const second = await ctx.open();
      if (!ctx.claims('RECLAIM_PENDING')) {
        // Without reclaim the broker itself hands a closed reader's unacked messages back to the
        // group, with the delivery counted: RabbitMQ at once (ahead of newer ones), NATS JetStream
        // once its ack wait has passed (after newer ones). Read until both came, in either order.
        const seen = new Map<string, number>();
        const deadline = Date.now() + 20_000;
        while (seen.size < 2 && Date.now() < deadline) {
          for (const m of await second.read(stream, 'g', 'c', { count: 10, blockMs: 500 })) seen.set(m.id, m.deliveryCount);
        }
        expect([...seen].sort(([a], [b]) => ids.indexOf(a) - ids.indexOf(b))).toEqual([
          [ids[0], 2],
          [ids[1], 1],
        ]);
        return;
      }
      expect(idsOf(await second.read(stream, 'g', 'c', NOW))).toEqual(ids.slice(1));
      if (ctx.claims('ACK_NACK')) await second.ack(stream, 'g', ids.slice(1));
      if (ctx.claims('RECLAIM_PENDING') && ctx.claims('ACK_NACK')) expect(idsOf(await second.reclaim(stream, 'g', 'c2', 0, 10))).toEqual(ids.slice(0, 1));
    });
  });
}
