/**
 * Conformance: what every broker does whatever its capabilities: honest capability flags,
 * connect/ping/info, close, and argument and capability errors before any I/O.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerArgumentError, BrokerCapabilityError, BrokerClosedError, BrokerCapability, type Broker, type BrokerCapabilityName } from '@protean-ts/core';
import { sampleBrokerEnvelope, type ConformanceContext } from './broker-conformance-fixtures.js';

const ALL = Object.keys(BrokerCapability) as BrokerCapabilityName[];

/** One call per optional capability, to show a broker without it refuses clearly. */
const USES: Partial<Record<BrokerCapabilityName, (broker: Broker, stream: string) => Promise<unknown>>> = {
  CONSUMER_GROUPS: (b, s) => b.ensureGroup(s, 'g'),
  ACK_NACK: (b, s) => b.ack(s, 'g', ['1-0']),
  RECLAIM_PENDING: (b, s) => b.reclaim(s, 'g', 'c', 0, 1),
  DEAD_LETTER_QUEUE: (b, s) => b.listDeadLetters(s),
  LIVENESS: (b) => b.reportAlive('c', 1_000),
};

export function lifecycleConformance(ctx: ConformanceContext): void {
  describe('lifecycle', () => {
    afterEach(() => ctx.closeAll());

    it('reports exactly the capabilities it claims', async () => {
      const broker = await ctx.open();
      const reported = ALL.filter((name) => broker.has(name));
      expect(reported.sort()).toEqual([...ctx.options.capabilities].sort());
    });

    it('rejects an unknown capability name', async () => {
      const broker = await ctx.open();
      expect(() => broker.has('TELEPORT' as BrokerCapabilityName)).toThrow(BrokerArgumentError);
    });

    it('connects idempotently, answers ping and describes itself', async () => {
      const broker = await ctx.open();
      await broker.connect();
      await broker.connect();
      expect(await broker.ping()).toBe(true);
      const info = await broker.info();
      expect(info).toMatchObject({ provider: broker.provider, name: broker.name, connected: true });
      expect(typeof info.details).toBe('object');
    });

    it('refuses work after close, and close is idempotent', async () => {
      const broker = await ctx.open();
      await broker.connect();
      await broker.close();
      await broker.close();
      expect(await broker.ping()).toBe(false);
      expect((await broker.info()).connected).toBe(false);
      await expect(broker.publish({ stream: ctx.stream(), envelope: sampleBrokerEnvelope('x') })).rejects.toThrow(BrokerClosedError);
      await expect(broker.connect()).rejects.toThrow(BrokerClosedError);
    });

    it('rejects bad arguments with BrokerArgumentError naming them', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream();
      if (ctx.claims('PUBLISH')) {
        await expect(broker.publish({ stream: '', envelope: sampleBrokerEnvelope(stream) })).rejects.toThrow(/message\.stream/);
        const headless = { data: {}, metadata: {} } as unknown as ReturnType<typeof sampleBrokerEnvelope>;
        await expect(broker.publish({ stream, envelope: headless })).rejects.toThrow(BrokerArgumentError);
        await expect(
          broker.publishBatch([
            { stream, envelope: sampleBrokerEnvelope(stream) },
            { stream: ' ', envelope: sampleBrokerEnvelope(stream) },
          ]),
        ).rejects.toThrow(/messages\[1\]\.stream/);
      }
      if (ctx.claims('CONSUMER_GROUPS')) {
        await expect(broker.read(stream, 'g', 'c', { count: 0, blockMs: 0 })).rejects.toThrow(/options\.count/);
        await expect(broker.read(stream, 'g', '', { count: 1, blockMs: 0 })).rejects.toThrow(BrokerArgumentError);
        await expect(broker.read(stream, 'g', 'c', { count: 1, blockMs: -1 })).rejects.toThrow(/blockMs/);
        await expect(broker.removeIdleConsumers(stream, 'g', -1)).rejects.toThrow(/idleMs/);
      }
      if (ctx.claims('RECLAIM_PENDING')) {
        await expect(broker.reclaim(stream, 'g', 'c', -5, 1)).rejects.toThrow(/minIdleMs/);
      }
    });

    for (const [capability, use] of Object.entries(USES) as [BrokerCapabilityName, (b: Broker, s: string) => Promise<unknown>][]) {
      if (ctx.claims(capability)) continue;
      it(`refuses ${capability} calls with BrokerCapabilityError`, async () => {
        const broker = await ctx.open();
        await expect(use(broker, ctx.stream())).rejects.toThrow(BrokerCapabilityError);
      });
    }
  });
}
