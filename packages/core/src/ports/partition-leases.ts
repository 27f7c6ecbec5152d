/**
 * Partition leases: which worker reads which partitions of the outbox broker's streams. With
 * `outbox.partitions` above 1 the relay sends every message to one partition of its stream, by a
 * hash of its partition key (stream-partitions.ts), and each partition is read by one worker at a
 * time, so a key's messages, and their predecessors, are all handled in one process.
 *
 * Like the event-store subscription lease, a partition lease only spares work: the inbox, written
 * in each handler's transaction, still decides whether a message is its key's next, a duplicate
 * or early. A worker that lost its lease without noticing (paused longer than the lease) can at
 * most commit a message the new owner has not committed yet, in its key's order; the new owner's
 * copy is then a duplicate. So a lease moving never breaks a key's order or runs an effect twice.
 *
 * There is no coordinator: every worker records itself as a member of the scope, computes from
 * the live members which partitions are its share (`assignedPartitions`), gives up those that are
 * not once it has stopped reading them, and takes those that are once they are free or expired.
 */

/** One partition's lease, as the store holds it. */
export interface PartitionLease {
  partition: number;
  /** The member holding it; null once released. */
  owner: string | null;
  /** Grows by one each time the partition changes hands: a fencing token for logs and status. */
  epoch: number;
  /** When it runs out unless renewed; null once released. */
  expiresAt: Date | null;
}

export interface PartitionClaim {
  /** The scope's live members (this one included), sorted. */
  members: string[];
  /** The partitions the member holds after this round, with their epochs, sorted by partition. */
  held: { partition: number; epoch: number }[];
}

export interface PartitionLeaseStore {
  /**
   * One round of a member's hold on a scope's partitions, atomically: records `member` alive for
   * `ttlMs`; releases the partitions it holds that are not in `wanted`; takes the partitions of
   * `wanted` that are free, expired or already its own (a partition taken from no one or from
   * another member gets a new epoch) and extends them to `ttlMs` from now; returns the live
   * members and what it holds. Expiry is judged by the store's clock, never the caller's.
   */
  claim(scope: string, member: string, wanted: readonly number[], ttlMs: number): Promise<PartitionClaim>;
  /** The member leaves: its record goes and its leases are released, so others take over at once. */
  leave(scope: string, member: string): Promise<void>;
  /** Every lease of the scope, sorted by partition (status and tests). */
  leases(scope: string): Promise<PartitionLease[]>;
}

/**
 * The partitions that are `member`'s share among `members`: partition p belongs to the
 * (p mod n)-th member in sorted order, so shares differ by at most one partition. Empty when
 * `member` is not among them.
 */
export function assignedPartitions(members: readonly string[], member: string, partitions: number): number[] {
  const sorted = [...members].sort();
  const index = sorted.indexOf(member);
  if (index < 0) return [];
  const share: number[] = [];
  for (let p = index; p < partitions; p += sorted.length) share.push(p);
  return share;
}
