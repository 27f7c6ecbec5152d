/**
 * Several relay processes share one outbox and one Redis: messages over many partition keys, half
 * committed before they start and half while they run. Every message must reach Redis exactly
 * once, and each key's messages in sequence order. Run at a smoke size by
 * outbox-multiprocess.e2e.spec.ts and at full size by outbox-multiprocess.load.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { POSTGRES, REDIS, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import type { RedisBroker } from '@protean-ts/redis';
import { spawnRelay, type ChildRelay } from '../support/child-relay.js';
import { waitFor } from '../support/processor-fixtures.js';
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
import type { MultiprocessSize } from '../support/scenario-sizes.js';

const up = await servicesUp(POSTGRES, REDIS);

const CATEGORIES = ['multi::alpha', 'multi::beta', 'multi::gamma', 'multi::delta', 'multi::epsilon'];

export function describeMultiprocessRelays({ relays: relayCount, keys, rounds }: MultiprocessSize): void {
  const total = keys * rounds;

  describe.skipIf(!up)(`${relayCount} relay processes on one outbox`, () => {
    let db: TempDatabase;
    let provider: PostgresProvider;
    let prefix: string;
    let reader: RedisBroker;
    const relays: ChildRelay[] = [];
    const rows = new RowFactory();

    beforeAll(async () => {
      db = await createTempDatabase('outbox_multi');
      provider = await outboxDatabase(db.uri);
      prefix = streamPrefix('multi');
      reader = redisBroker(rows.broker, prefix);
    });
    afterAll(async () => {
      await Promise.all(relays.map((r) => r.stop()));
      await reader?.close();
      await provider?.close();
      await db?.drop();
    });

    // One commit per round: one row per key, the round being the sequence, as an aggregate would.
    function round(n: number): NewOutboxRow[] {
      return Array.from({ length: keys }, (_, k) => rows.row(`key${k}`, n, { streamName: CATEGORIES[k % CATEGORIES.length]! }));
    }

    it(`publish ${total.toLocaleString('en')} messages exactly once, in order per key`, async () => {
      const beforeStart = Math.floor(rounds / 2);
      for (let n = 1; n <= beforeStart; n++) await appendCommitted(provider, round(n));
      relays.push(
        ...(await Promise.all(
          Array.from({ length: relayCount }, (_, i) =>
            spawnRelay({
              databaseUri: db.uri,
              redisUri: REDIS_URI,
              streamPrefix: prefix,
              broker: rows.broker,
              workerId: `relay-${i}`,
              lockSeconds: 30,
              messagesPerTick: 100,
              tickInterval: 0.5,
            }),
          ),
        )),
      );
      for (let n = beforeStart + 1; n <= rounds; n++) await appendCommitted(provider, round(n));

      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === total, 120_000, 'every row to be published');
      const exits = await Promise.all(relays.splice(0).map((r) => r.stop()));
      expect(exits).toEqual(Array(relayCount).fill(0));

      const counts = await provider.outbox.counts(rows.broker);
      expect(counts).toMatchObject({ pending: 0, processing: 0, failed: 0, abandoned: 0, published: total });

      const envelopes = (await Promise.all(CATEGORIES.map((c) => drainStream(reader, c)))).flat();
      const ids = envelopes.map((e) => e.metadata.headers.id);
      expect(ids.length).toBe(total);
      expect(new Set(ids).size).toBe(total);

      const perKey = new Map<string, number[]>();
      for (const envelope of envelopes) {
        const key = envelope.metadata.headers.stream;
        const list = perKey.get(key) ?? [];
        list.push(Number(String(envelope.metadata.domain.sequenceId).split('.')[0]));
        perKey.set(key, list);
      }
      expect(perKey.size).toBe(keys);
      const expected = Array.from({ length: rounds }, (_, i) => i + 1);
      const outOfOrder = [...perKey].filter(([, sequences]) => sequences.join() !== expected.join());
      expect(outOfOrder).toEqual([]);
    }, 180_000);
  });
}
