/**
 * A relay process killed with SIGKILL while it holds a claimed batch loses nothing: once the
 * dead worker's locks expire, a survivor publishes its rows; no attempt is counted, and per-key
 * order holds for the first delivery of every message (the rows the dead worker may already
 * have sent can arrive twice: delivery is at-least-once). Run at a smoke size by
 * outbox-crash.e2e.spec.ts and at full size by outbox-crash.load.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { OutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../../src/index.js';
import { spawnRelay } from '../support/child-relay.js';
import { outboxConfig, waitFor } from '../support/processor-fixtures.js';
import {
  appendCommitted,
  createTempDatabase,
  drainStream,
  outboxDatabase,
  REDIS_URI,
  redisBroker,
  streamPrefix,
  type TempDatabase,
} from '../support/real-services.js';
import type { CrashSize } from '../support/scenario-sizes.js';

const up = await servicesUp(POSTGRES, REDIS);

export function describeRelayCrash({ keys, perKey }: CrashSize): void {
  const total = keys * perKey;

  describe.skipIf(!up)(`a relay process killed mid-batch (${total.toLocaleString('en')} rows)`, () => {
    let db: TempDatabase;
    let provider: PostgresProvider;
    let prefix: string;
    let broker: RedisBroker;
    const rows = new RowFactory();

    beforeAll(async () => {
      db = await createTempDatabase('outbox_crash');
      provider = await outboxDatabase(db.uri);
      prefix = streamPrefix('crash');
      broker = redisBroker(rows.broker, prefix);
    });
    afterAll(async () => {
      await broker?.close();
      await provider?.close();
      await db?.drop();
    });

    /** Rows the given worker holds right now, read with a connection of its own. */
    async function heldBy(workerId: string): Promise<{ id: string; lockedUntil: Date }[]> {
      const client = new pg.Client({ connectionString: db.uri });
      await client.connect();
      try {
        const result = await client.query<{ id: string; locked_until: Date }>(
          "SELECT id::text, locked_until FROM protean_outbox WHERE status = 'processing' AND locked_by = $1",
          [workerId],
        );
        return result.rows.map((r) => ({ id: r.id, lockedUntil: r.locked_until }));
      } finally {
        await client.end();
      }
    }

    it('its rows are published by a survivor after the lock expires, and nothing is lost', async () => {
      for (let n = 1; n <= perKey; n++)
        await appendCommitted(
          provider,
          Array.from({ length: keys }, (_, k) => rows.row(`key${k}`, n)),
        );
      const victim = await spawnRelay({
        databaseUri: db.uri,
        redisUri: REDIS_URI,
        streamPrefix: prefix,
        broker: rows.broker,
        workerId: 'victim',
        lockSeconds: 3,
        messagesPerTick: 200,
        tickInterval: 0.2,
      });

      // Freeze the process, look at what it holds, and kill it only when it holds a batch.
      let held: { id: string; lockedUntil: Date }[] = [];
      for (let attempt = 0; attempt < 200 && held.length === 0; attempt++) {
        victim.process.kill('SIGSTOP');
        // A statement sent just before the freeze still completes on the server: let it land.
        await new Promise((resolve) => setTimeout(resolve, 200));
        held = await heldBy('victim');
        if (held.length === 0) {
          victim.process.kill('SIGCONT');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      expect(held.length).toBeGreaterThan(0);
      victim.process.kill('SIGKILL');
      await victim.exited;

      const survivor = new OutboxProcessor({
        name: 'survivor',
        store: provider.outbox,
        broker,
        config: outboxConfig({ messages_per_tick: 200, lock_seconds: 30 }),
        workerId: 'survivor',
      });
      await survivor.start();
      try {
        await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === total, 60_000, 'every row to be published');
      } finally {
        await survivor.stop();
      }

      const all = (await provider.outbox.list({ limit: 100_000 })).filter((r) => r.targetBroker === rows.broker);
      expect(all.every((r) => r.status === 'published' && r.retryCount === 0)).toBe(true);
      const byId = new Map<string, OutboxRow>(all.map((r) => [r.id, r]));
      for (const { id, lockedUntil } of held) {
        // Taken over only once the dead worker's lock had run out.
        expect(byId.get(id)!.publishedAt!.getTime()).toBeGreaterThanOrEqual(lockedUntil.getTime());
      }

      const envelopes = await drainStream(broker, 'conformance::thing');
      const seen = new Set(envelopes.map((e) => e.metadata.headers.id));
      expect(all.filter((r) => !seen.has(r.messageId))).toEqual([]);
      // Only rows the dead worker held can have been sent twice.
      const heldMessages = new Set(held.map((h) => byId.get(h.id)!.messageId));
      const counts = new Map<string, number>();
      for (const e of envelopes) counts.set(e.metadata.headers.id, (counts.get(e.metadata.headers.id) ?? 0) + 1);
      expect([...counts].filter(([id, n]) => n > 1 && !heldMessages.has(id))).toEqual([]);

      // First deliveries per key follow the sequence.
      const firstSeen = new Map<string, number[]>();
      const delivered = new Set<string>();
      for (const e of envelopes) {
        if (delivered.has(e.metadata.headers.id)) continue;
        delivered.add(e.metadata.headers.id);
        const list = firstSeen.get(e.metadata.headers.stream) ?? [];
        list.push(Number(String(e.metadata.domain.sequenceId).split('.')[0]));
        firstSeen.set(e.metadata.headers.stream, list);
      }
      const expected = Array.from({ length: perKey }, (_, i) => i + 1).join();
      expect([...firstSeen].filter(([, s]) => s.join() !== expected)).toEqual([]);
    }, 120_000);
  });
}
