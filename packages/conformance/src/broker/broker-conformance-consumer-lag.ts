/**
 * Conformance: consumer lag (`CONSUMER_LAG`), what the outbox relay's back-pressure reads. Every
 * group of a stream is listed with the messages it has not finished: undelivered plus delivered
 * and unacked, so a group that read ahead without acking is still behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Broker, GroupLag } from '@protean-ts/core';
import { sampleBrokerEnvelope, type ConformanceContext } from './broker-conformance-fixtures.js';

const byGroup = (lags: GroupLag[]) => Object.fromEntries(lags.map((lag) => [lag.group, lag.behind]));

async function publish(broker: Broker, stream: string, n: number): Promise<void> {
  await broker.publishBatch(Array.from({ length: n }, (_, i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
}

export function consumerLagConformance(ctx: ConformanceContext): void {
  describe.runIf(ctx.claims('CONSUMER_LAG') && ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK'))('consumer lag', () => {
    afterEach(() => ctx.closeAll());

    it('lists each group of the stream with its undelivered plus unacked messages', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      await broker.ensureGroup(stream, 'fast');
      await broker.ensureGroup(stream, 'slow');
      await publish(broker, stream, 5);
      expect(byGroup(await broker.consumerLag!(stream))).toEqual({ fast: 5, slow: 5 });

      // Read but not acked is still behind; acked is done.
      const read = await broker.read(stream, 'fast', 'c1', { count: 3, blockMs: 0 });
      expect(read).toHaveLength(3);
      expect(byGroup(await broker.consumerLag!(stream))).toEqual({ fast: 5, slow: 5 });
      await broker.ack(
        stream,
        'fast',
        read.map((m) => m.id),
      );
      expect(byGroup(await broker.consumerLag!(stream))).toEqual({ fast: 2, slow: 5 });
    });

    it('answers [] for a stream nobody created or reads', async () => {
      const broker = await ctx.open();
      expect(await broker.consumerLag!(ctx.stream())).toEqual([]);
    });
  });
}
