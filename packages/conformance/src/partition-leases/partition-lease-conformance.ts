/**
 * The behaviour every `PartitionLeaseStore` must show, as a vitest suite adapters run against
 * their own store (memory in core, PostgreSQL in @protean-ts/mikro-orm): members, taking free
 * partitions, not taking held ones, releasing what is no longer wanted, expiry, leaving, and
 * several members claiming at once. Imports vitest: test files only.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { assignedPartitions, type PartitionLeaseStore } from '@protean-ts/core';

export interface PartitionLeaseConformanceHarness {
  /** A store whose tables exist. Called before each test. */
  open(): Promise<PartitionLeaseStore>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const partitionsOf = (claim: { held: { partition: number }[] }) => claim.held.map((lease) => lease.partition);

export function describePartitionLeaseConformance(name: string, harness: PartitionLeaseConformanceHarness): void {
  describe(`PartitionLeaseStore conformance: ${name}`, () => {
    let store: PartitionLeaseStore;
    let scope: string;

    beforeEach(async () => {
      store = await harness.open();
      scope = `scope-${randomUUID().slice(0, 8)}`;
    });

    it('records members and hands free partitions to the first who wants them, at epoch 1', async () => {
      const first = await store.claim(scope, 'a', [0, 1, 2], 10_000);
      expect(first).toEqual({
        members: ['a'],
        held: [
          { partition: 0, epoch: 1 },
          { partition: 1, epoch: 1 },
          { partition: 2, epoch: 1 },
        ],
      });
      const second = await store.claim(scope, 'b', [1, 3], 10_000);
      expect(second.members).toEqual(['a', 'b']);
      expect(partitionsOf(second)).toEqual([3]);
    });

    it('keeps a held partition on renewal without a new epoch, and releases what is no longer wanted', async () => {
      await store.claim(scope, 'a', [0, 1], 10_000);
      expect((await store.claim(scope, 'a', [0, 1], 10_000)).held).toEqual([
        { partition: 0, epoch: 1 },
        { partition: 1, epoch: 1 },
      ]);
      expect(partitionsOf(await store.claim(scope, 'a', [0], 10_000))).toEqual([0]);
      expect(partitionsOf(await store.claim(scope, 'b', [1], 10_000))).toEqual([1]);
      const leases = await store.leases(scope);
      expect(leases.map(({ partition, owner, epoch }) => ({ partition, owner, epoch }))).toEqual([
        { partition: 0, owner: 'a', epoch: 1 },
        { partition: 1, owner: 'b', epoch: 2 },
      ]);
    });

    it('lets an expired lease and an expired member go, judged by the store', async () => {
      await store.claim(scope, 'a', [0, 1], 300);
      expect(partitionsOf(await store.claim(scope, 'b', [0, 1], 10_000))).toEqual([]);
      await sleep(400);
      const taken = await store.claim(scope, 'b', [0, 1], 10_000);
      expect(taken).toEqual({
        members: ['b'],
        held: [
          { partition: 0, epoch: 2 },
          { partition: 1, epoch: 2 },
        ],
      });
      // The old owner's next round finds its partitions gone: it holds nothing and is a member again.
      const back = await store.claim(scope, 'a', [0, 1], 10_000);
      expect(back).toEqual({ members: ['a', 'b'], held: [] });
    });

    it('frees every lease of a member that leaves, and forgets the member', async () => {
      await store.claim(scope, 'a', [0, 1], 10_000);
      await store.claim(scope, 'b', [], 10_000);
      await store.leave(scope, 'a');
      const claim = await store.claim(scope, 'b', [0, 1], 10_000);
      expect(claim).toEqual({
        members: ['b'],
        held: [
          { partition: 0, epoch: 2 },
          { partition: 1, epoch: 2 },
        ],
      });
      await store.leave(scope, 'nobody');
    });

    it('keeps scopes apart', async () => {
      await store.claim(scope, 'a', [0], 10_000);
      const other = `${scope}-other`;
      expect(await store.claim(other, 'b', [0], 10_000)).toEqual({ members: ['b'], held: [{ partition: 0, epoch: 1 }] });
    });

    it('gives each partition to exactly one of several members claiming at once, and converges on their shares', async () => {
      const members = ['w1', 'w2', 'w3', 'w4'];
      const partitions = 16;
      // Round one: everyone wants everything; each partition ends with exactly one of them.
      const greedy = await Promise.all(members.map((m) => store.claim(scope, m, [...Array(partitions).keys()], 10_000)));
      expect(greedy.flatMap(partitionsOf).sort((x, y) => x - y)).toEqual([...Array(partitions).keys()]);
      // Then each keeps only its share, and takes the rest of it as the others let go.
      for (let round = 0; round < 3; round += 1) {
        for (const m of members) await store.claim(scope, m, assignedPartitions(members, m, partitions), 10_000);
      }
      for (const m of members) {
        const claim = await store.claim(scope, m, assignedPartitions(members, m, partitions), 10_000);
        expect(partitionsOf(claim)).toEqual(assignedPartitions(members, m, partitions));
        expect(claim.members).toEqual(members);
      }
    });
  });
}
