/**
 * A broker that goes away for a while, on each broker: the processor pauses and probes, holds no
 * rows, burns no attempts, and once the broker is back it resumes by itself and everything
 * committed meanwhile flows, in each key's order. Shared servers are never stopped: Redis is a
 * server of the test's own, NATS and RabbitMQ sit behind a TCP proxy the test cuts and restores.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { OutboxProcessor } from '../src/index.js';
import { OUTAGE_BROKERS, type OutageBroker } from './support/outage-brokers.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, outboxDatabase, type TempDatabase } from './support/real-services.js';

const KEYS = 30;
const ROUNDS = 10;
const TOTAL = KEYS * ROUNDS;
/** Rounds committed and published before the cut; the rest are committed while the broker is away. */
const BEFORE_CUT = 2;

const available = await Promise.all(OUTAGE_BROKERS.map(async (kind) => [kind.kind, kind, await servicesUp(POSTGRES, ...kind.services)] as const));

describe.each(available)('OutboxProcessor while %s is unreachable', (_name, kind, up) => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let outage: OutageBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    if (!up) return;
    db = await createTempDatabase(`outbox_${kind.kind}_outage`);
    provider = await outboxDatabase(db.uri);
    outage = await kind.open(rows.broker);
  });
  afterAll(async () => {
    await outage?.close();
    await provider?.close();
    await db?.drop();
  });
  afterEach(() => logs?.restore());

  const commitRound = (n: number): NewOutboxRow[] => Array.from({ length: KEYS }, (_, k) => rows.row(`key${k}`, n));
  const mine = async () => (await provider.outbox.list({ limit: 100_000 })).filter((r) => r.targetBroker === rows.broker);

  it.skipIf(!up)(
    'loses nothing, consumes no attempts, and resumes on its own once the broker answers again',
    async () => {
      logs = captureLogs();
      const relay = new OutboxProcessor({
        name: `${kind.kind}-outage-relay`,
        store: provider.outbox,
        broker: outage.broker,
        config: outboxConfig({ tick_interval: 0.1, messages_per_tick: 50 }),
        workerId: 'outage-worker',
        brokerProbe: { initialMs: 100, maxMs: 500 },
      });
      await relay.start();
      try {
        for (let n = 1; n <= BEFORE_CUT; n++) await appendCommitted(provider, commitRound(n));
        await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === KEYS * BEFORE_CUT, 15_000, 'the rows committed before the cut');

        await outage.cut();
        for (let n = BEFORE_CUT + 1; n <= ROUNDS; n++) await appendCommitted(provider, commitRound(n));
        await waitFor(() => relay.state === 'broker-unavailable', 15_000, 'the processor to pause');
        // Paused for a while: several probes fail, yet no row is charged and none stays claimed.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const during = await mine();
        expect(during.filter((r) => r.status === 'processing')).toEqual([]);
        expect(during.filter((r) => r.retryCount > 0 || r.status === 'failed' || r.status === 'abandoned')).toEqual([]);
        // Every row committed during the cut waits: nothing can be published while it lasts.
        expect(during.filter((r) => r.status === 'pending')).toHaveLength(TOTAL - KEYS * BEFORE_CUT);
        expect((await relay.metrics()).state).toBe('broker-unavailable');
        expect(await outage.broker.ping()).toBe(false);

        await outage.restore();
        await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === TOTAL, 30_000, 'every row after the broker is back');
        expect(relay.state).toBe('running');
      } finally {
        await relay.stop();
      }

      const after = await mine();
      expect(after.every((r) => r.status === 'published' && r.retryCount === 0)).toBe(true);
      expect(logs.messages('warn').filter((m) => m.startsWith('broker unreachable; pausing'))).toHaveLength(1);
      expect(logs.messages('info').some((m) => m === 'broker reachable again; resuming')).toBe(true);

      // Every message reached the subscriber; in order per key, counting first deliveries.
      const envelopes = await outage.delivered();
      const ids = envelopes.map((e) => e.metadata.headers.id);
      expect(new Set(ids).size).toBe(TOTAL);
      if (kind.exactlyOnce) expect(ids).toHaveLength(TOTAL);
      const perKey = new Map<string, string[]>();
      const seen = new Set<string>();
      for (const e of envelopes) {
        if (seen.has(e.metadata.headers.id)) continue;
        seen.add(e.metadata.headers.id);
        perKey.set(e.metadata.headers.stream, [...(perKey.get(e.metadata.headers.stream) ?? []), String(e.metadata.domain.sequenceId)]);
      }
      const expected = Array.from({ length: ROUNDS }, (_, i) => `${i + 1}.0`).join();
      expect([...perKey.values()].filter((s) => s.join() !== expected)).toEqual([]);
    },
    90_000,
  );
});
