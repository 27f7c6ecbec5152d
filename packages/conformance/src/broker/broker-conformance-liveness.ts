/**
 * Conformance: liveness. A consumer that reported alive and stopped reporting (a SIGKILLed
 * worker) has its pending messages taken over at once by `reclaimFromDeadConsumers`; one that
 * keeps reporting (a slow handler) or never reported is left alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerArgumentError, type Broker } from '@protean-ts/core';
import { sampleBrokerEnvelope, sleep, type ConformanceContext } from './broker-conformance-fixtures.js';

const SHORT_TTL_MS = 100;
const LONG_TTL_MS = 60_000;
const ANY_IDLE = { minIdleMs: 0 };

/** Publishes `n` messages and has `consumer` read them in group `g`, where they stay pending. */
async function readBy(broker: Broker, stream: string, consumer: string, n: number) {
  await broker.ensureGroup(stream, 'g');
  await broker.publishBatch(Array.from({ length: n }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
  const messages = await broker.read(stream, 'g', consumer, { count: n, blockMs: 0 });
  expect(messages).toHaveLength(n);
  return messages;
}

export function livenessConformance(ctx: ConformanceContext): void {
  describe.runIf(ctx.claims('LIVENESS') && ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK'))('liveness', () => {
    afterEach(() => ctx.closeAll());

    it('takes over at once the pending messages of a consumer whose liveness expired, counting the delivery', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      // Consumer names are process-wide (shared by every stream): unique per test.
      const dead = `${stream}-killed`;
      await broker.reportAlive(dead, SHORT_TTL_MS);
      const messages = await readBy(broker, stream, dead, 2);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE)).toEqual([]);
      await sleep(SHORT_TTL_MS + 100);

      const taken = await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE);
      expect(taken).toStrictEqual(messages.map((m) => ({ ...m, deliveryCount: 2 })));
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'other', 10, ANY_IDLE)).toEqual([]);
      // The rescuer owns them now: it acks them like any message it read.
      expect(
        await broker.ack(
          stream,
          'g',
          taken.map((m) => m.id),
        ),
      ).toBe(2);
    });

    it('never robs a consumer that keeps reporting alive, however long its handler runs', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const slow = `${stream}-slow`;
      await broker.reportAlive(slow, SHORT_TTL_MS);
      await readBy(broker, stream, slow, 1);
      for (let beat = 0; beat < 8; beat += 1) {
        await sleep(SHORT_TTL_MS / 3);
        await broker.reportAlive(slow, SHORT_TTL_MS);
        expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE)).toEqual([]);
      }
      expect((await broker.groupStatus(stream, 'g')).pending).toBe(1);
    });

    it('leaves a consumer that never reported alive to the normal reclaim', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const [message] = await readBy(broker, stream, `${stream}-older-process`, 1);
      await sleep(SHORT_TTL_MS + 100);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE)).toEqual([]);
      expect((await broker.reclaim(stream, 'g', 'rescuer', SHORT_TTL_MS, 10)).map((m) => m.id)).toEqual([message!.id]);
    });

    it('waits until the dead consumer has also been idle for minIdleMs', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const dead = `${stream}-killed`;
      await broker.reportAlive(dead, 1);
      const [message] = await readBy(broker, stream, dead, 1);
      await sleep(50);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, { minIdleMs: LONG_TTL_MS })).toEqual([]);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10)).toEqual([]);
      await sleep(1_000);
      expect((await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10)).map((m) => m.id)).toEqual([message!.id]);
    });

    it('takes at most count messages, oldest first, and never from the claiming consumer itself', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const dead = `${stream}-killed`;
      await broker.reportAlive(dead, 1);
      const messages = await readBy(broker, stream, dead, 5);
      await sleep(50);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', dead, 10, ANY_IDLE)).toEqual([]);
      const first = await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 2, ANY_IDLE);
      expect(first.map((m) => m.id)).toEqual(messages.slice(0, 2).map((m) => m.id));
      const rest = await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE);
      expect(rest.map((m) => m.id)).toEqual(messages.slice(2).map((m) => m.id));
    });

    it('treats a consumer that reports alive again as alive', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      const paused = `${stream}-paused`;
      await broker.reportAlive(paused, 1);
      await readBy(broker, stream, paused, 1);
      await sleep(50);
      await broker.reportAlive(paused, LONG_TTL_MS);
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE)).toEqual([]);
    });

    it('finds nothing on a stream or group that does not exist', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      expect(await broker.reclaimFromDeadConsumers(stream, 'g', 'rescuer', 10, ANY_IDLE)).toEqual([]);
      await broker.ensureGroup(stream, 'g');
      expect(await broker.reclaimFromDeadConsumers(stream, 'other', 'rescuer', 10, ANY_IDLE)).toEqual([]);
    });

    it('rejects bad arguments with BrokerArgumentError naming them', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await expect(broker.reportAlive('', 1_000)).rejects.toThrow(BrokerArgumentError);
      await expect(broker.reportAlive('', 1_000)).rejects.toThrow(/reportAlive\(\): consumer/);
      await expect(broker.reportAlive('c', 0)).rejects.toThrow(/ttlMs/);
      await expect(broker.reclaimFromDeadConsumers(stream, 'g', 'c', 0)).rejects.toThrow(/count/);
      await expect(broker.reclaimFromDeadConsumers(stream, 'g', ' ', 1)).rejects.toThrow(/consumer/);
      await expect(broker.reclaimFromDeadConsumers(stream, 'g', 'c', 1, { minIdleMs: -1 })).rejects.toThrow(/options\.minIdleMs/);
    });
  });
}
