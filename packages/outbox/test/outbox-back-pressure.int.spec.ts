/**
 * Relay back-pressure (`outbox.max_consumer_lag`) on Redis, NATS and RabbitMQ: with a consumer group that does not
 * keep up, the relay stops publishing once the group is past the bound (its rows stay pending,
 * nothing is charged an attempt), says so in its metrics, and resumes by itself as the group
 * catches up, until every row went out once and in each key's order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { OutboxProcessor } from '../src/index.js';
import { OUTAGE_BROKERS, OUTAGE_STREAM as STREAM, type OutageBroker } from './support/outage-brokers.js';
import { captureLogs, outboxConfig, waitFor } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, outboxDatabase, type TempDatabase } from './support/real-services.js';

/** The consumer group of the test (the RabbitMQ broker of the outage suite declares it already). */
const GROUP = 'subscriber';
const KEYS = 20;
const ROUNDS = 10;
const TOTAL = KEYS * ROUNDS;
const MAX_LAG = 30;
const BATCH = 10;

// The outage suite's brokers, each isolated (a Redis server of its own, a NATS stream prefix, a
// RabbitMQ vhost); nothing is cut here.
const available = await Promise.all(
  OUTAGE_BROKERS.map(async (kind) => [kind.kind, kind, await servicesUp(POSTGRES, ...(kind.kind === 'redis' ? [REDIS] : kind.services))] as const),
);

describe.each(available)('OutboxProcessor back-pressure on %s', (_name, kind, up) => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let opened: OutageBroker;
  const rows = new RowFactory();
  const broker = () => opened.broker;

  beforeAll(async () => {
    if (!up) return;
    db = await createTempDatabase(`outbox_${kind.kind}_back_pressure`);
    provider = await outboxDatabase(db.uri);
    opened = await kind.open(rows.broker);
    await broker().ensureGroup(STREAM, GROUP);
  });
  afterAll(async () => {
    await opened?.close();
    await provider?.close();
    await db?.drop();
  });

  const backlog = async () => {
    const status = await broker().groupStatus(STREAM, GROUP);
    return (status.lag ?? Infinity) + status.pending;
  };

  it.skipIf(!up)(
    'holds back while the group lags past max_consumer_lag and resumes as it catches up, losing nothing',
    async () => {
      const logs = captureLogs();
      const relay = new OutboxProcessor({
        name: `${kind.kind}-back-pressure-relay`,
        store: provider.outbox,
        broker: broker(),
        config: outboxConfig({ messages_per_tick: BATCH, tick_interval: 0.05, max_consumer_lag: MAX_LAG, lag_check_interval: 0.05 }),
        workerId: 'back-pressure-worker',
      });
      await relay.start();
      let worstSeen = 0;
      try {
        const commitRound = (n: number): NewOutboxRow[] => Array.from({ length: KEYS }, (_, k) => rows.row(`key${k}`, n));
        for (let n = 1; n <= ROUNDS; n++) await appendCommitted(provider, commitRound(n));

        await waitFor(async () => (await relay.metrics()).backPressure?.heldBack === true, 15_000, 'the relay to hold back');
        // Held back for a while: the group's backlog stays within the bound plus the batch in flight,
        // and the rest waits in the outbox, pending and uncharged.
        for (let sample = 0; sample < 15; sample++) {
          worstSeen = Math.max(worstSeen, await backlog());
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(worstSeen).toBeGreaterThan(MAX_LAG);
        expect(worstSeen).toBeLessThanOrEqual(MAX_LAG + BATCH);
        const counts = await provider.outbox.counts(rows.broker);
        expect(counts.pending).toBe(TOTAL - (await broker().groupStatus(STREAM, GROUP)).lag!);
        expect(counts.failed + counts.abandoned).toBe(0);
        const metrics = await relay.metrics();
        expect(metrics.backPressure).toMatchObject({ maxConsumerLag: MAX_LAG, heldBack: true, heldBackTimes: 1, worst: { stream: STREAM, group: GROUP } });
        expect(metrics.backPressure!.worst!.behind).toBeGreaterThan(MAX_LAG);
        expect(logs.messages('warn').some((m) => m.startsWith(`relay held back: group "${GROUP}" of stream "${STREAM}"`))).toBe(true);

        // The consumer catches up in small steps; the relay follows, never past the bound for long.
        const received: string[] = [];
        const byKey: Record<string, number[]> = {};
        await waitFor(
          async () => {
            const batch = await broker().read(STREAM, GROUP, 'consumer', { count: 7, blockMs: 0 });
            if (batch.length > 0)
              await broker().ack(
                STREAM,
                GROUP,
                batch.map((m) => m.id),
              );
            for (const m of batch) {
              received.push(m.envelope.metadata.headers.id);
              const key = m.envelope.metadata.headers.stream!;
              (byKey[key] ??= []).push(parseInt(m.envelope.metadata.domain.sequenceId!, 10));
            }
            worstSeen = Math.max(worstSeen, await backlog());
            return received.length === TOTAL;
          },
          30_000,
          'the consumer to receive every row',
        );
        expect(new Set(received).size).toBe(TOTAL);
        for (const sequences of Object.values(byKey)) expect(sequences).toEqual(Array.from({ length: ROUNDS }, (_, i) => i + 1));
        expect(worstSeen).toBeLessThanOrEqual(MAX_LAG + BATCH);
        await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === TOTAL, 10_000, 'every row marked published');
        await waitFor(async () => (await relay.metrics()).backPressure?.heldBack === false, 5_000, 'the relay to resume');
        const after = (await relay.metrics()).backPressure!;
        expect(after.heldBackTimes).toBeGreaterThanOrEqual(1);
        expect(after.heldBackMs).toBeGreaterThan(0);
        // The first hold and its resumption are logged at WARN and INFO; later ones within a minute at DEBUG.
        expect(logs.messages('info')).toContain('relay resumed: every consumer group is down to half of max_consumer_lag');
        expect(logs.messages('warn').filter((m) => m.startsWith('relay held back'))).toHaveLength(1);
      } finally {
        await relay.stop();
        logs.restore();
      }
    },
    60_000,
  );
});
