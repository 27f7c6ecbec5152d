/**
 * Partition leases for one process (the memory database): the rules of the PostgreSQL store,
 * checked by the same conformance suite, for tests and for an in-process Engine.
 */
import type { PartitionClaim, PartitionLease, PartitionLeaseStore } from '../../ports/partition-leases.js';

interface Scope {
  /** Member → when its record runs out (epoch ms). */
  members: Map<string, number>;
  leases: Map<number, { owner: string | null; epoch: number; expiresAt: number | null }>;
}

export class MemoryPartitionLeases implements PartitionLeaseStore {
  private readonly scopes = new Map<string, Scope>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(scope: string, member: string, wanted: readonly number[], ttlMs: number): Promise<PartitionClaim> {
    const state = this.scope(scope);
    const now = this.now();
    const until = now + ttlMs;
    state.members.set(member, until);
    for (const [name, expiresAt] of state.members) if (expiresAt <= now) state.members.delete(name);
    const want = new Set(wanted);
    for (const [partition, lease] of state.leases) {
      if (lease.owner === member && !want.has(partition)) state.leases.set(partition, { owner: null, epoch: lease.epoch, expiresAt: null });
    }
    for (const partition of want) {
      const lease = state.leases.get(partition);
      if (lease?.owner === member) lease.expiresAt = until;
      else if (!lease || lease.owner === null || (lease.expiresAt ?? 0) <= now)
        state.leases.set(partition, { owner: member, epoch: (lease?.epoch ?? 0) + 1, expiresAt: until });
    }
    const held = [...state.leases]
      .filter(([, lease]) => lease.owner === member)
      .map(([partition, lease]) => ({ partition, epoch: lease.epoch }))
      .sort((a, b) => a.partition - b.partition);
    return { members: [...state.members.keys()].sort(), held };
  }

  async leave(scope: string, member: string): Promise<void> {
    const state = this.scope(scope);
    state.members.delete(member);
    for (const lease of state.leases.values()) {
      if (lease.owner !== member) continue;
      lease.owner = null;
      lease.expiresAt = null;
    }
  }

  async leases(scope: string): Promise<PartitionLease[]> {
    return [...this.scope(scope).leases]
      .map(([partition, lease]) => ({
        partition,
        owner: lease.owner,
        epoch: lease.epoch,
        expiresAt: lease.expiresAt === null ? null : new Date(lease.expiresAt),
      }))
      .sort((a, b) => a.partition - b.partition);
  }

  private scope(name: string): Scope {
    let state = this.scopes.get(name);
    if (!state) {
      state = { members: new Map(), leases: new Map() };
      this.scopes.set(name, state);
    }
    return state;
  }
}
