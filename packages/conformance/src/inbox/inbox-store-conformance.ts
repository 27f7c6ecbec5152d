/**
 * The behaviour every `InboxStore` must show, as a vitest suite adapters run against their own
 * store (memory in core, PostgreSQL in @protean-ts/mikro-orm): a key's next message, duplicates,
 * early messages, moves that commit or roll back with the handler's transaction, passes, late
 * messages, gap jumps, records by message id, and bounded cleanup. Imports vitest: test files only.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseProvider, InboxEntry, InboxStore, InboxVerdict } from '@protean-ts/core';

export interface InboxConformanceHarness {
  /** A connected provider whose inbox tables exist. Called before each test. */
  open(): Promise<DatabaseProvider>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeInboxStoreConformance(name: string, harness: InboxConformanceHarness): void {
  describe(`InboxStore conformance: ${name}`, () => {
    let provider: DatabaseProvider;
    let store: InboxStore;
    let subscription: string;
    let key: string;

    beforeEach(async () => {
      provider = await harness.open();
      store = provider.inbox;
      subscription = `Sub-${randomUUID().slice(0, 8)}`;
      key = `conformance::thing-${randomUUID().slice(0, 8)}`;
    });

    const entry = (sequence: number | null, extra: Partial<InboxEntry> = {}): InboxEntry => ({
      subscription,
      position: sequence === null ? null : { key, sequence },
      messageId: `m-${sequence ?? randomUUID()}`,
      brokerMessageId: `${sequence ?? 0}-0`,
      ...extra,
    });

    /** Enters in a transaction of its own and commits (or rolls back). */
    async function enter(e: InboxEntry, commit = true): Promise<InboxVerdict['kind']> {
      const tx = await provider.begin();
      try {
        const verdict = await store.enter(tx, e);
        await (commit ? tx.commit() : tx.rollback());
        return verdict.kind;
      } catch (error) {
        await tx.rollback();
        throw error;
      }
    }

    it("takes a key's messages in sequence: next, then duplicate on redelivery, early past a gap", async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await enter(entry(1))).toBe('duplicate');
      expect(await enter(entry(3))).toBe('early');
      expect(await enter(entry(2))).toBe('next');
      expect(await enter(entry(3))).toBe('next');
      expect(await store.checkpoint(subscription, key)).toBe(3);
      expect(await enter(entry(2))).toBe('duplicate');
    });

    it('a key without checkpoint starts at sequence 1; a later one is early', async () => {
      expect(await enter(entry(2))).toBe('early');
      expect(await store.checkpoint(subscription, key)).toBeNull();
      expect(await enter(entry(1))).toBe('next');
    });

    it('the move rolls back with the transaction, so the message is next again', async () => {
      expect(await enter(entry(1), false)).toBe('next');
      expect(await store.checkpoint(subscription, key)).toBeNull();
      expect(await enter(entry(1))).toBe('next');
    });

    it('one transaction may enter several positions of a key in turn (a projection rebuild does), all moving at commit', async () => {
      const tx = await provider.begin();
      try {
        const verdicts = [];
        for (const sequence of [1, 2, 3]) verdicts.push((await store.enter(tx, entry(sequence))).kind);
        verdicts.push((await store.enter(tx, entry(2))).kind);
        expect(verdicts).toEqual(['next', 'next', 'next', 'duplicate']);
        await tx.commit();
      } catch (error) {
        await tx.rollback();
        throw error;
      }
      expect(await store.checkpoint(subscription, key)).toBe(3);
      expect(await enter(entry(4))).toBe('next');
    });

    it("forget removes a subscription's records; its keys start at sequence 1 again, other subscriptions keep theirs", async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await enter(entry(2))).toBe('next');
      expect(await enter({ ...entry(1), subscription: `${subscription}-other` })).toBe('next');
      expect(await store.forget(subscription)).toBeGreaterThanOrEqual(1);
      expect(await store.checkpoint(subscription, key)).toBeNull();
      expect(await enter(entry(1))).toBe('next');
      expect(await store.checkpoint(`${subscription}-other`, key)).toBe(1);
    });

    it('keys and subscriptions are independent', async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await enter({ ...entry(1), subscription: `${subscription}-other` })).toBe('next');
      expect(await enter({ ...entry(1), position: { key: `${key}-other`, sequence: 1 } })).toBe('next');
    });

    it('a successor never gets its turn before the predecessor commits', async () => {
      const first = await provider.begin();
      expect((await store.enter(first, entry(1))).kind).toBe('next');
      const second = await provider.begin();
      const pending = store.enter(second, entry(2));
      await sleep(50);
      const beforeCommit = await Promise.race([pending.then((v) => v.kind), sleep(0).then(() => 'still waiting' as const)]);
      // PostgreSQL waits on the row lock; the memory store answers at once.
      expect(['early', 'still waiting']).toContain(beforeCommit);
      await first.commit();
      const verdict = await pending;
      if (verdict.kind === 'early') {
        await second.rollback();
        expect(await enter(entry(2))).toBe('next');
      } else {
        expect(verdict.kind).toBe('next');
        await second.commit();
      }
      expect(await store.checkpoint(subscription, key)).toBe(2);
    });

    it('pass moves a key past positions it does not handle, only in turn', async () => {
      expect(await store.pass(subscription, [{ key, sequence: 2 }])).toEqual([false]);
      expect(
        await store.pass(subscription, [
          { key, sequence: 1 },
          { key: `${key}-b`, sequence: 1 },
        ]),
      ).toEqual([true, true]);
      expect(await store.pass(subscription, [{ key, sequence: 2 }])).toEqual([true]);
      expect(await store.checkpoint(subscription, key)).toBe(2);
      expect(await enter(entry(2))).toBe('duplicate');
      expect(await enter(entry(3))).toBe('next');
    });

    it('a dead-lettered position: the same delivery is dead-lettered again, a replay (another delivery) is handled late, once', async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await store.pass(subscription, [{ key, sequence: 2, reason: 'dead-lettered', messageId: 'm-2', brokerMessageId: '2-0' }])).toEqual([true]);
      expect(await enter(entry(3))).toBe('next');
      expect(await enter(entry(2))).toBe('dead-lettered');
      expect(await enter(entry(2, { brokerMessageId: '9-0' }), false)).toBe('late');
      expect(await enter(entry(2, { brokerMessageId: '9-0' }))).toBe('late');
      expect(await enter(entry(2, { brokerMessageId: '9-0' }))).toBe('duplicate');
    });

    it('a late message that fails again is dead-lettered again: its passed record is renewed, not lost', async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await store.pass(subscription, [{ key, sequence: 1, reason: 'dead-lettered', brokerMessageId: '1-0' }])).toEqual([false]);
      expect(await store.pass(subscription, [{ key, sequence: 2, reason: 'dead-lettered', brokerMessageId: '2-0' }])).toEqual([true]);
      // The replay (delivery 9-0) is handled late and fails: the handler's transaction rolls back.
      expect(await enter(entry(2, { brokerMessageId: '9-0' }), false)).toBe('late');
      expect(await store.pass(subscription, [{ key, sequence: 2, reason: 'dead-lettered', brokerMessageId: '9-0' }])).toEqual([true]);
      expect(await enter(entry(2, { brokerMessageId: '9-0' }))).toBe('dead-lettered');
      expect(await enter(entry(2, { brokerMessageId: '10-0' }))).toBe('late');
    });

    it('jumpGap takes a message over a gap; the positions jumped over are handled late if they come, once', async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await enter(entry(5))).toBe('early');
      expect(await enter(entry(5, { jumpGap: true }))).toBe('next');
      expect(await store.checkpoint(subscription, key)).toBe(5);
      expect(await enter(entry(3))).toBe('late');
      expect(await enter(entry(3))).toBe('duplicate');
      expect(await enter(entry(5, { jumpGap: true }))).toBe('duplicate');
      expect(await enter(entry(6))).toBe('next');
    });

    it('jumpGap on a key without checkpoint starts it there', async () => {
      expect(await enter(entry(4, { jumpGap: true }))).toBe('next');
      expect(await enter(entry(2))).toBe('late');
      expect(await enter(entry(5))).toBe('next');
    });

    it('messages without a position are recorded by id: once, and again after a rollback', async () => {
      const e = entry(null);
      expect(await enter(e, false)).toBe('next');
      expect(await enter(e)).toBe('next');
      expect(await enter(e)).toBe('duplicate');
      expect(await enter({ ...e, subscription: `${subscription}-other` })).toBe('next');
    });

    it("positions gives every subscription's checkpoints and passed positions of the keys asked for", async () => {
      const other = `${subscription}-other`;
      expect(await enter(entry(1))).toBe('next');
      expect(await store.pass(subscription, [{ key, sequence: 2, reason: 'dead-lettered', brokerMessageId: '2-0' }])).toEqual([true]);
      expect(await store.pass(other, [{ key, sequence: 1 }])).toEqual([true]);
      expect(await store.pass(subscription, [{ key: `${key}-elsewhere`, sequence: 1 }])).toEqual([true]);
      const { checkpoints, passed } = await store.positions([key, `${key}-none`]);
      const byName = (a: { subscription: string }, b: { subscription: string }) => (a.subscription < b.subscription ? -1 : 1);
      expect(checkpoints.sort(byName).map(({ subscription: s, key: k, sequence }) => ({ s, k, sequence }))).toEqual([
        { s: subscription, k: key, sequence: 2 },
        { s: other, k: key, sequence: 1 },
      ]);
      for (const checkpoint of checkpoints) expect(Math.abs(checkpoint.updatedAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect(passed.map(({ subscription: s, key: k, sequence, reason }) => ({ s, k, sequence, reason }))).toEqual([
        { s: subscription, k: key, sequence: 2, reason: 'dead-lettered' },
      ]);
      expect(passed[0]!.passedAt).toBeInstanceOf(Date);
      expect(await store.positions([])).toEqual({ checkpoints: [], passed: [] });
    });

    it('totals counts, per subscription, its checkpoint sequences plus its messages recorded by id', async () => {
      expect(await enter(entry(1))).toBe('next');
      expect(await enter(entry(2))).toBe('next');
      expect(await store.pass(subscription, [{ key: `${key}-b`, sequence: 1 }])).toEqual([true]);
      expect(await enter(entry(null))).toBe('next');
      const mine = (await store.totals()).filter((row) => row.subscription === subscription);
      expect(mine).toEqual([{ subscription, total: 4 }]);
    });

    it('cleanup removes old records in bounded batches and keeps checkpoints', async () => {
      expect(await enter(entry(null))).toBe('next');
      expect(await enter(entry(null))).toBe('next');
      expect(await store.pass(subscription, [{ key, sequence: 1, reason: 'dead-lettered', brokerMessageId: '1-0' }])).toEqual([true]);
      expect(await store.cleanup({ before: new Date(Date.now() - 60_000), batchSize: 10 })).toBe(0);
      let removed = 0;
      for (let round = 0; round < 10; round++) {
        const n = await store.cleanup({ before: new Date(Date.now() + 60_000), batchSize: 1 });
        expect(n).toBeLessThanOrEqual(1);
        if (n === 0) break;
        removed += n;
      }
      expect(removed).toBeGreaterThanOrEqual(3);
      expect(await store.checkpoint(subscription, key)).toBe(1);
      expect(await enter(entry(1))).toBe('duplicate');
    });
  });
}
