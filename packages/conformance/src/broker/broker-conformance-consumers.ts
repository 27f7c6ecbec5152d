/**
 * Conformance: removing consumers that stopped (restarted workers come back under new names),
 * never one that still has pending messages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Broker } from '@protean-ts/core';
import { sampleBrokerEnvelope, sleep, type ConformanceContext } from './broker-conformance-fixtures.js';

const IDLE_MS = 100;

/** Publishes one message and has `consumer` read it (Redis creates a consumer on its first delivery). */
async function readOne(broker: Broker, stream: string, consumer: string) {
  await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
  const [message, ...rest] = await broker.read(stream, 'g', consumer, { count: 10, blockMs: 0 });
  expect(rest).toEqual([]);
  return message!;
}

export function consumersConformance(ctx: ConformanceContext): void {
  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK'))('idle consumers', () => {
    afterEach(() => ctx.closeAll());

    it('removes consumers idle longer than idleMs with nothing pending, returns their names, and keeps the others', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      await broker.ack(stream, 'g', [(await readOne(broker, stream, 'stopped-b')).id]);
      await broker.ack(stream, 'g', [(await readOne(broker, stream, 'stopped-a')).id]);
      await readOne(broker, stream, 'crashed');
      await sleep(IDLE_MS + 100);
      await broker.ack(stream, 'g', [(await readOne(broker, stream, 'alive')).id]);

      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual(['stopped-a', 'stopped-b']);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual([]);
      // The crashed consumer's message is still pending in the group, waiting to be reclaimed.
      expect((await broker.groupStatus(stream, 'g')).pending).toBe(1);
    });

    it('lets a removed consumer read again, and removes it again once it is idle', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      await broker.ack(stream, 'g', [(await readOne(broker, stream, 'worker')).id]);
      await sleep(IDLE_MS + 100);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual(['worker']);

      const message = await readOne(broker, stream, 'worker');
      expect(await broker.ack(stream, 'g', [message.id])).toBe(1);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual([]);
      await sleep(IDLE_MS + 100);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual(['worker']);
    });

    it('finds nothing to remove on a stream or group that does not exist', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      expect(await broker.removeIdleConsumers(stream, 'g', 0)).toEqual([]);
      await broker.ensureGroup(stream, 'g');
      expect(await broker.removeIdleConsumers(stream, 'other', 0)).toEqual([]);
    });
  });

  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK') && ctx.claims('DISTRIBUTED') && ctx.claims('BLOCKING_READ'))(
    'releasing a group',
    () => {
      afterEach(() => ctx.closeAll());

      it('hands what an instance took in ahead of its reads to another instance at once after releaseGroup, and reads again afterwards', async () => {
        const first = await ctx.open();
        const second = await ctx.open();
        const stream = ctx.stream();
        await first.ensureGroup(stream, 'g');
        for (let i = 0; i < 4; i += 1) await first.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
        // Two read and acked: a broker that takes deliveries in ahead (a prefetch) now holds the other two.
        const read = await first.read(stream, 'g', 'first', { count: 2, blockMs: 2_000 });
        expect(read).toHaveLength(2);
        expect(
          await first.ack(
            stream,
            'g',
            read.map((m) => m.id),
          ),
        ).toBe(2);
        await sleep(300);
        await first.releaseGroup(stream, 'g');
        const rest = await second.read(stream, 'g', 'second', { count: 10, blockMs: 2_000 });
        const more = rest.length < 2 ? await second.read(stream, 'g', 'second', { count: 10, blockMs: 2_000 }) : [];
        expect(rest.length + more.length).toBe(2);
        await second.ack(
          stream,
          'g',
          [...rest, ...more].map((m) => m.id),
        );
        // The released instance reads the group again.
        await first.publish({ stream, envelope: sampleBrokerEnvelope(stream) });
        const again = await first.read(stream, 'g', 'first', { count: 10, blockMs: 2_000 });
        expect(again.length + (await second.read(stream, 'g', 'second', { count: 10, blockMs: 0 })).length).toBe(1);
        await first.releaseGroup(ctx.stream(), 'never-read');
      });
    },
  );

  describe.runIf(ctx.claims('CONSUMER_GROUPS') && ctx.claims('RECLAIM_PENDING'))('idle consumers and reclaim', () => {
    afterEach(() => ctx.closeAll());

    it('removes a crashed consumer only once its pending messages were reclaimed', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'g');
      const unacked = await readOne(broker, stream, 'crashed');
      await sleep(IDLE_MS + 100);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual([]);

      const [taken] = await broker.reclaim(stream, 'g', 'rescuer', IDLE_MS, 10);
      expect(taken!.id).toBe(unacked.id);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual(['crashed']);
      // The rescuer holds it now: it is still pending, and the rescuer is kept.
      expect((await broker.groupStatus(stream, 'g')).pending).toBe(1);
      await sleep(IDLE_MS + 100);
      expect(await broker.removeIdleConsumers(stream, 'g', IDLE_MS)).toEqual([]);
    });
  });
}
