/**
 * One process's share of the stream partitions (`outbox.partitions` > 1). Every round it tells
 * the lease store it is alive, works out from the live members which partitions are its share
 * (`assignedPartitions`), stops reading those it should give up before releasing them, takes
 * those it should have once they are free or expired, and tells its listeners (the partitioned
 * subscriptions) what it gained and lost. Rounds come every third of the lease, and every
 * `SETTLING_MS` while its holding differs from its share (a move in progress).
 *
 * When the store cannot be reached, partitions are kept until the lease would have run out by
 * this process's own clock, then dropped: another worker may hold them by then.
 */
import { assignedPartitions, type Logger, type PartitionLeaseStore } from '@protean-ts/core';
import { abortableSleep } from './abortable-sleep.js';

/** What a partitioned subscription does when the process gains or loses a partition. */
export interface PartitionListener {
  /** Starts reading the partition. */
  gained(partition: number): void;
  /** Stops reading it: resolves once the messages being handled finished and the rest went back. */
  lost(partition: number): Promise<void>;
}

export interface PartitionOwnershipOptions {
  store: PartitionLeaseStore;
  /** Who shares the partitions: the domain and its broker. */
  scope: string;
  /** This process (its consumer name). */
  member: string;
  partitions: number;
  leaseMs: number;
  logger: Logger;
}

/** Pause between rounds while a move is in progress. */
const SETTLING_MS = 250;
/** Partitions are dropped this long before the lease would run out by our clock, to spare a clock drift. */
const EXPIRY_MARGIN_MS = 500;

export class PartitionOwnership {
  private readonly listeners: PartitionListener[] = [];
  /** Partitions held, with their epochs; a partition being stopped stays here until it has. */
  private readonly held = new Map<number, number>();
  /** Partitions whose loops are stopping, until they have. */
  private readonly stopping = new Map<number, Promise<void>>();
  private members: string[] = [];
  private heldUntil = 0;
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  private failures = 0;

  constructor(private readonly options: PartitionOwnershipOptions) {}

  listen(listener: PartitionListener): void {
    this.listeners.push(listener);
    for (const partition of this.held.keys()) listener.gained(partition);
  }

  /** Partitions held now, sorted. */
  get partitions(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** Live members seen in the last round. */
  get liveMembers(): readonly string[] {
    return this.members;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops the rounds, stops reading every partition, and leaves so the others take over at once. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.stopReadingAll();
    try {
      await this.options.store.leave(this.options.scope, this.options.member);
    } catch (error) {
      this.options.logger.warn('could not release the stream partitions; other workers take them over when the lease runs out', {
        error,
        leaseMs: this.options.leaseMs,
      });
    }
  }

  private async run(): Promise<void> {
    const { leaseMs } = this.options;
    while (!this.abort.signal.aborted) {
      const settled = await this.round();
      await abortableSleep(settled ? Math.max(SETTLING_MS, Math.floor(leaseMs / 3)) : SETTLING_MS, this.abort.signal);
    }
  }

  /** One round; true when the holding equals the share. */
  private async round(): Promise<boolean> {
    const { store, scope, member, partitions, leaseMs, logger } = this.options;
    const started = Date.now();
    try {
      // Partitions no longer ours stop in the background (their handlers finish first) and stay
      // claimed until they have, so renewing the others never waits for a slow handler.
      const share = this.members.length ? assignedPartitions(this.members, member, partitions) : [];
      for (const partition of this.held.keys()) if (!share.includes(partition)) this.stopReading(partition);
      const claim = await store.claim(scope, member, [...new Set([...share, ...this.stopping.keys()])], leaseMs);
      if (this.failures > 0) logger.info('the partition leases answer again', { afterFailures: this.failures });
      this.failures = 0;
      this.heldUntil = started + leaseMs - EXPIRY_MARGIN_MS;
      const now = new Map(claim.held.map((lease) => [lease.partition, lease.epoch]));
      const membersChanged = claim.members.join('\u0000') !== this.members.join('\u0000');
      this.members = claim.members;
      // Taken by another member meanwhile (our lease ran out while we could not renew): stop now.
      for (const partition of this.held.keys()) if (!now.has(partition)) this.stopReading(partition);
      // Only our share: a partition that finished stopping during the claim is still in `now`, and goes with the next one.
      const wanted = assignedPartitions(claim.members, member, partitions);
      const gained = [...now].filter(([p]) => wanted.includes(p) && !this.held.has(p) && !this.stopping.has(p));
      for (const [partition, epoch] of gained) {
        this.held.set(partition, epoch);
        for (const listener of this.listeners) listener.gained(partition);
      }
      if (gained.length || membersChanged) {
        logger.info('stream partitions of this worker', {
          partitions: this.partitions,
          gained: gained.map(([p, epoch]) => `${p}@${epoch}`),
          members: claim.members.length,
        });
      }
      return !membersChanged && this.stopping.size === 0 && wanted.length === this.held.size && wanted.every((p) => this.held.has(p));
    } catch (error) {
      this.failures += 1;
      if (this.failures === 1 || this.failures % 10 === 0) {
        logger.warn('could not renew the stream partition leases; retrying', {
          error,
          failures: this.failures,
          holdsUntil: new Date(this.heldUntil).toISOString(),
        });
      }
      if (this.held.size && Date.now() >= this.heldUntil) {
        logger.warn('the partition leases ran out while the lease store was unreachable: this worker stops reading its partitions', {
          partitions: this.partitions,
        });
        await this.stopReadingAll();
      }
      return false;
    }
  }

  /** Starts stopping the partition's loops; it leaves `held` (and is released) once they have stopped. */
  private stopReading(partition: number): void {
    if (this.stopping.has(partition)) return;
    const stopped = Promise.all(this.listeners.map((listener) => listener.lost(partition))).then(
      () => undefined,
      (error: unknown) => this.options.logger.error('stopping a partition failed', { partition, error }),
    );
    this.stopping.set(
      partition,
      stopped.finally(() => {
        this.held.delete(partition);
        this.stopping.delete(partition);
      }),
    );
  }

  private async stopReadingAll(): Promise<void> {
    for (const partition of this.held.keys()) this.stopReading(partition);
    await Promise.all(this.stopping.values());
  }
}
