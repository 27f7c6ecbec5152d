/**
 * One worker's hold on an event-store subscription: taken when free or expired, renewed every
 * third of its length (so two renewals may fail before it runs out), released on stop. The
 * lease lives in the event store's database; no process of ours decides who reads.
 */
import type { EventStoreSubscriptions, ReaderCursor } from '@protean-ts/core';

export class EventStoreLease {
  private held = false;
  private renewAt = 0;

  constructor(
    private readonly store: EventStoreSubscriptions,
    private readonly subscription: string,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** When the next renewal is due (epoch ms); loops wake up for it. */
  get nextRenewalAt(): number {
    return this.renewAt;
  }

  /** The cursor to read after when the lease was taken; null while another worker holds it. */
  async acquire(): Promise<ReaderCursor | null> {
    const cursor = await this.store.acquire(this.subscription, this.owner, this.leaseMs);
    this.held = cursor !== null;
    if (this.held) this.scheduleRenewal();
    return cursor;
  }

  /** Renews when due; false when the lease turned out to be another worker's now. */
  async renewIfDue(now = Date.now()): Promise<boolean> {
    if (!this.held || now < this.renewAt) return this.held;
    this.held = await this.store.renew(this.subscription, this.owner, this.leaseMs);
    if (this.held) this.scheduleRenewal();
    return this.held;
  }

  /** Saves the resume cursor; false (and no longer held) when the lease is another worker's. */
  async saveCursor(cursor: ReaderCursor): Promise<boolean> {
    if (!this.held) return false;
    this.held = await this.store.saveCursor(this.subscription, this.owner, cursor);
    return this.held;
  }

  /** Hands the lease back so a standby takes over now, not when it would have run out. */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.store.release(this.subscription, this.owner);
  }

  /** Forgets the lease without telling the store (it was lost). */
  drop(): void {
    this.held = false;
  }

  private scheduleRenewal(): void {
    this.renewAt = Date.now() + Math.max(1, Math.floor(this.leaseMs / 3));
  }
}
