/**
 * The event store under concurrency: two writers of one stream (exactly one wins when both
 * expect the same version; both land, gapless, when neither checks), and the never-skip rule of
 * category and `$all` readers: a transaction that took a lower global position but commits
 * later (or rolls back) must never be jumped over. PostgreSQL blocks the second writer on the
 * first; memory finds the conflict at commit: the checks accept either. Imports vitest.
 */
import { describe, expect, it } from 'vitest';
import {
  StreamVersionError,
  type DatabaseProvider,
  type ProviderTransaction,
  type EventStore,
  cursorOf,
  type ReaderCursor,
  type StoredEvent,
} from '@protean-ts/core';
import { before, eventually, type EventFactory, inTransaction, readToHead, sleep } from './event-store-conformance-fixtures.js';

interface Context {
  provider: DatabaseProvider;
  store: EventStore;
  f: EventFactory;
}

/** Outcome of an append and commit that may block and may be refused at either step. */
type Outcome = { ok: true } | { ok: false; error: unknown };

async function settle(tx: ProviderTransaction, work: Promise<unknown>): Promise<Outcome> {
  try {
    await work;
    await tx.commit();
    return { ok: true };
  } catch (error) {
    await tx.rollback();
    return { ok: false, error };
  }
}

/** Follows a category like a subscription would: the events read, in order, and the cursor. */
class Follower {
  readonly seen: StoredEvent[] = [];
  cursor: ReaderCursor;

  constructor(
    private readonly store: EventStore,
    private readonly category: string,
    from: ReaderCursor,
  ) {
    this.cursor = from;
  }

  async poll(): Promise<StoredEvent[]> {
    const { events, cursor } = await readToHead(this.store, this.category, this.cursor, 7);
    this.seen.push(...events);
    this.cursor = cursor;
    return events;
  }

  ids(): string[] {
    return this.seen.map((e) => e.messageId);
  }
}

async function append(
  provider: DatabaseProvider,
  store: EventStore,
  stream: string,
  events: ReturnType<EventFactory['events']>,
  expectedVersion: number,
): Promise<void> {
  await inTransaction(
    () => provider.begin(),
    (tx) => store.append(tx, stream, events, { expectedVersion }),
  );
}

export function describeEventStoreConcurrency(context: () => Context): void {
  describe('concurrent writers', () => {
    it('two writers expecting the same version of one stream: exactly one wins', async () => {
      const { provider, store, f } = context();
      const stream = f.stream();
      const a = await provider.begin();
      const b = await provider.begin();
      const [eventsA, eventsB] = [f.events(2, 'a'), f.events(3, 'b')];
      await store.append(a, stream, eventsA, { expectedVersion: -1 });
      // On PostgreSQL B's append waits for A's transaction and is refused once A commits; in
      // memory B's append returns at once, B commits first and A's commit is refused.
      const outcomeB = settle(b, store.append(b, stream, eventsB, { expectedVersion: -1 }));
      await sleep(50);
      const outcomeA = await settle(a, Promise.resolve());
      const outcomes = { a: outcomeA, b: await outcomeB };
      const winners = Object.entries(outcomes)
        .filter(([, o]) => o.ok)
        .map(([who]) => who);
      expect(winners.length).toBe(1);
      const [winner] = winners as ['a' | 'b'];
      const loser = outcomes[winner === 'a' ? 'b' : 'a'] as { error: unknown };
      expect(loser.error).toBeInstanceOf(StreamVersionError);
      expect(loser.error).toMatchObject({ streamName: stream, expectedVersion: -1, actualVersion: winner === 'a' ? 1 : 2 });
      expect((await store.readStream(stream)).map((e) => e.data.label)).toEqual(winner === 'a' ? ['a', 'a'] : ['b', 'b', 'b']);
    });

    it('two transactions appending to the same two streams in opposite orders: one lands, the other is a StreamVersionError, never a hang or a raw deadlock', async () => {
      const { provider, store, f } = context();
      const [first, second] = [f.stream(), f.stream()];
      await append(provider, store, first, f.events(1), -1);
      await append(provider, store, second, f.events(1), -1);
      const a = await provider.begin();
      const b = await provider.begin();
      await store.append(a, first, f.events(1, 'a'), { expectedVersion: 0 });
      await store.append(b, second, f.events(1, 'b'), { expectedVersion: 0 });
      // Each now appends to the stream the other holds: on PostgreSQL a lock cycle the server
      // breaks (deadlock_timeout); in memory the conflict shows at commit.
      const outcomes = await Promise.all([
        settle(a, store.append(a, second, f.events(1, 'a'), { expectedVersion: 0 })),
        settle(b, store.append(b, first, f.events(1, 'b'), { expectedVersion: 0 })),
      ]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      const loser = outcomes.find((o) => !o.ok) as { error: unknown };
      // A conflict like any other: the unit of work's retries reload and run again.
      expect(loser.error).toBeInstanceOf(StreamVersionError);
      const winner = outcomes[0]!.ok ? 'a' : 'b';
      expect((await store.readStream(first)).map((e) => e.data.label)).toEqual(['e', winner]);
      expect((await store.readStream(second)).map((e) => e.data.label)).toEqual(['e', winner]);
    });

    it('many writers racing for the next version of one stream: each version is won by exactly one', async () => {
      const { provider, store, f } = context();
      const stream = f.stream();
      let won = 0;
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.all(
          Array.from({ length: 4 }, async () => {
            const tx = await provider.begin();
            return settle(tx, store.append(tx, stream, f.events(1), { expectedVersion: round - 1 }));
          }),
        );
        const winners = outcomes.filter((o) => o.ok).length;
        expect(winners).toBe(1);
        for (const o of outcomes) if (!o.ok) expect(o.error).toBeInstanceOf(StreamVersionError);
        won += winners;
      }
      expect(await store.streamVersion(stream)).toBe(won - 1);
      expect((await store.readStream(stream)).map((e) => e.position)).toEqual([0, 1, 2, 3, 4]);
    });

    it('writers without expected version all land, in gapless stream positions', async () => {
      const { provider, store, f } = context();
      const stream = f.stream();
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const tx = await provider.begin();
          return settle(tx, store.append(tx, stream, f.events(2, `w${i}`)));
        }),
      );
      expect(outcomes.every((o) => o.ok)).toBe(true);
      const read = await store.readStream(stream);
      expect(read.map((e) => e.position)).toEqual([...Array(12).keys()]);
      // Each writer's two events stay together.
      for (let i = 0; i < 12; i += 2) expect(read[i]!.data.label).toBe(read[i + 1]!.data.label);
    });
  });

  describe('readers never skip a committed event', () => {
    it('a slow transaction holding an earlier global position is not jumped over: it is read once it commits', async () => {
      const { provider, store, f } = context();
      const reader = new Follower(store, f.category, (await readToHead(store, f.category)).cursor);
      const slow = await provider.begin();
      await store.append(slow, f.stream('slow'), f.events(1, 'slow'));
      // B takes a later global position and commits first.
      const fast = await provider.begin();
      await store.append(fast, f.stream('fast'), f.events(1, 'fast'));
      await fast.commit();
      await reader.poll();
      await sleep(30);
      await reader.poll();
      // Whatever a store shows meanwhile, the slow transaction's event is never among it...
      expect(reader.seen.map((e) => e.data.label)).not.toContain('slow');
      await slow.commit();
      // ...and once it has committed, it is read, with nothing skipped and nothing read twice.
      await eventually('both events read', async () => (await reader.poll(), reader.seen.length >= 2));
      await sleep(30);
      await reader.poll();
      expect(reader.seen.map((e) => e.data.label).sort()).toEqual(['fast', 'slow']);
    });

    it('a slow transaction that rolls back: the reader moves on past it and reads the rest', async () => {
      const { provider, store, f } = context();
      const reader = new Follower(store, f.category, (await readToHead(store, f.category)).cursor);
      const slow = await provider.begin();
      await store.append(slow, f.stream('slow'), f.events(2, 'slow'));
      await inTransaction(
        () => provider.begin(),
        (tx) => store.append(tx, f.stream('fast'), f.events(1, 'fast')),
      );
      await reader.poll();
      expect(reader.seen.map((e) => e.data.label)).not.toContain('slow');
      await slow.rollback();
      await eventually('the committed event read', async () => (await reader.poll(), reader.seen.length >= 1));
      await inTransaction(
        () => provider.begin(),
        (tx) => store.append(tx, f.stream('after'), f.events(1, 'after')),
      );
      await eventually('the later event read', async () => (await reader.poll(), reader.seen.length >= 2));
      expect(reader.seen.map((e) => e.data.label)).toEqual(['fast', 'after']);
    });

    it('concurrent writers, some slow, some rolled back, and a reader polling all along: each committed event is read exactly once, in reader order', async () => {
      const { provider, store, f } = context();
      const reader = new Follower(store, f.category, (await readToHead(store, f.category)).cursor);
      const committed = new Set<string>();
      const rolledBack = new Set<string>();
      let writing = true;
      const polling = (async () => {
        while (writing) {
          await reader.poll();
          await sleep(3);
        }
      })();
      await Promise.all(
        Array.from({ length: 6 }, async (_, writer) => {
          for (let round = 0; round < 6; round++) {
            const events = f.events(1 + ((writer + round) % 3), `w${writer}`);
            const tx = await provider.begin();
            await store.append(tx, f.stream(`w${writer}`), events);
            await sleep((writer * 7 + round * 13) % 25);
            const keep = (writer + round) % 4 !== 0;
            await (keep ? tx.commit() : tx.rollback());
            for (const e of events) (keep ? committed : rolledBack).add(e.messageId);
          }
        }),
      );
      writing = false;
      await polling;
      await eventually('every committed event read', async () => (await reader.poll(), reader.seen.length >= committed.size));
      const ids = reader.ids();
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(committed);
      for (const id of ids) expect(rolledBack.has(id)).toBe(false);
      for (let i = 1; i < reader.seen.length; i++) expect(before(cursorOf(reader.seen[i - 1]!), cursorOf(reader.seen[i]!))).toBe(true);
    });
  });
}
