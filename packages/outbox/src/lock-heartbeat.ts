/**
 * Keeps the claim on rows a processor holds while it publishes them: every third of the lock it
 * pushes `locked_until` of the rows still held one lock further, so a slow publish is never
 * taken over by another processor, while a dead processor's rows become claimable at most one
 * lock after its last heartbeat. It also knows until when each held row's lock surely lasts, so
 * writes about them stop being retried once another worker may own them.
 */
import type { Logger, OutboxStore } from '@protean-ts/core';

export class LockHeartbeat {
  /** Held row id → local time until which this worker's lock surely holds. */
  private readonly held = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly store: OutboxStore,
    private readonly workerId: string,
    private readonly lockMs: number,
    private readonly log: Logger,
  ) {}

  /** Rows just claimed; `claimedAt` is a local time taken before the claim was sent. */
  hold(ids: readonly string[], claimedAt: number): void {
    for (const id of ids) this.held.set(id, claimedAt + this.lockMs);
    if (this.held.size > 0) this.schedule();
  }

  /** Rows settled (published, failed, released) or given up: no longer renewed. */
  drop(ids: readonly string[]): void {
    for (const id of ids) this.held.delete(id);
    if (this.held.size === 0) this.cancel();
  }

  /** The earliest time one of `ids` may be taken over (never later than its last renewal + lock). */
  lockedUntil(ids: readonly string[]): number {
    let until = Number.POSITIVE_INFINITY;
    for (const id of ids) until = Math.min(until, this.held.get(id) ?? 0);
    return until;
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** Stops renewing (held rows then come back to other workers once their locks expire). */
  async stop(): Promise<void> {
    this.cancel();
    await this.beating;
  }

  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.beating = this.beat().finally(() => {
        this.beating = null;
        if (this.held.size > 0) this.schedule();
      });
    }, this.lockMs / 3);
    // A heartbeat alone must not keep a process alive.
    this.timer.unref();
  }

  private cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async beat(): Promise<void> {
    const ids = [...this.held.keys()];
    const sentAt = Date.now();
    try {
      const extended = await this.store.extendLocks(this.workerId, ids, this.lockMs);
      for (const id of extended) if (this.held.has(id)) this.held.set(id, sentAt + this.lockMs);
      this.log.debug(`renewed the lock of ${extended.length} of ${ids.length} held rows`, { held: ids.length, renewed: extended.length });
    } catch (error) {
      // The relay's own statements report the outage; the rows keep the lock they had.
      this.log.warn('could not renew the lock of held outbox rows; retrying at the next heartbeat', {
        held: ids.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
