/**
 * The concurrency cap of one subscription across every worker: a message runs only while it
 * holds one of `max` permits in PostgreSQL (see PostgresFlowLimits). Permits are leases: this
 * process renews the ones it holds every third of the lease, so a worker that dies frees its
 * permits when the lease runs out. Messages of this process that find every permit taken wait
 * in line here; only the first of them asks the database again, with a growing pause.
 */
import type { Logger } from '@protean-ts/core';
import { abortableSleep } from '../abortable-sleep.js';
import { MessageHeld } from './message-held.js';
import type { PostgresFlowLimits } from './postgres-flow-limits.js';

export interface ConcurrencyCapStatus {
  max: number;
  /** Permits this process holds now. */
  held: number;
  /** Messages of this process waiting for a permit now. */
  waiting: number;
}

/** Pauses between asks while every permit is taken: from 10 ms doubling to 200 ms. */
const FIRST_ASK_MS = 10;
const LAST_ASK_MS = 200;

export interface Permit {
  release(): Promise<void>;
}

export class ConcurrencyCap {
  private readonly held = new Map<string, number>();
  private line: Promise<void> = Promise.resolve();
  private waiting = 0;
  private serial = 0;
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly limits: PostgresFlowLimits,
    private readonly scope: string,
    private readonly max: number,
    private readonly leaseMs: number,
    private readonly holderPrefix: string,
    private readonly log: Logger,
  ) {}

  /** Waits for a permit in line; throws MessageHeld when the subscription stops meanwhile. */
  async acquire(signal: AbortSignal | undefined): Promise<Permit> {
    this.waiting += 1;
    const turn = this.line.then(() => this.take(signal));
    // The next in line waits for this one to get its permit (or give up), not for its handler.
    this.line = turn.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await turn;
    } finally {
      this.waiting -= 1;
    }
  }

  status(): ConcurrencyCapStatus {
    return { max: this.max, held: this.held.size, waiting: this.waiting };
  }

  /** Gives back every permit still held (the subscription stopped). */
  async stop(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    await Promise.all([...this.held].map(([holder, slot]) => this.limits.releasePermit(this.scope, slot, holder).catch(() => undefined)));
    this.held.clear();
  }

  private async take(signal: AbortSignal | undefined): Promise<Permit> {
    const holder = `${this.holderPrefix}/${++this.serial}`;
    for (let pause = FIRST_ASK_MS; ; pause = Math.min(LAST_ASK_MS, pause * 2)) {
      if (signal?.aborted) throw new MessageHeld(0, 'stopping while waiting for a concurrency permit');
      const slot = await this.limits.takePermit(this.scope, this.max, holder, this.leaseMs);
      if (slot !== null) {
        this.held.set(holder, slot);
        this.keepRenewing();
        return { release: () => this.release(holder, slot) };
      }
      if (signal) await abortableSleep(pause, signal);
      else await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private async release(holder: string, slot: number): Promise<void> {
    if (!this.held.delete(holder)) return;
    try {
      await this.limits.releasePermit(this.scope, slot, holder);
    } catch (error) {
      // Not released: it expires after the lease, as a dead worker's would.
      this.log.warn('could not give back a concurrency permit; it is freed when its lease runs out', { scope: this.scope, slot, error });
    }
  }

  private keepRenewing(): void {
    if (this.renewal) return;
    this.renewal = setInterval(() => {
      if (this.held.size === 0) {
        // Nothing held: no timer keeps running for an idle subscription (the next permit starts one).
        clearInterval(this.renewal!);
        this.renewal = null;
        return;
      }
      this.limits
        .renewPermits(this.scope, [...this.held.keys()], this.leaseMs)
        .catch((error: unknown) => this.log.warn('could not renew the concurrency permits held; they expire after their lease', { scope: this.scope, error }));
    }, this.leaseMs / 3);
    this.renewal.unref();
  }
}
