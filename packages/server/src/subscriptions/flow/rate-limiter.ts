/**
 * The rate limit of one subscription across every worker: before a message starts, it reserves
 * the next start slot in PostgreSQL (a GCRA, see PostgresFlowLimits) and waits until its slot.
 * Each try of a message takes a slot, retries included: the limit bounds calls to the handler.
 */
import { abortableSleep } from '../abortable-sleep.js';
import { MessageHeld } from './message-held.js';
import type { PostgresFlowLimits } from './postgres-flow-limits.js';

export interface RateLimitStatus {
  perSecond: number;
  burst: number;
  /** Messages that waited for their slot, and for how long in all (ms), since the process started. */
  delayed: number;
  delayedMs: number;
}

export class RateLimiter {
  private delayed = 0;
  private delayedMs = 0;

  constructor(
    private readonly limits: PostgresFlowLimits,
    private readonly scope: string,
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Resolves at the message's slot; throws MessageHeld when the subscription stops meanwhile. */
  async take(signal: AbortSignal | undefined): Promise<void> {
    const waitMs = await this.limits.reserveSlot(this.scope, this.perSecond, this.burst);
    if (waitMs <= 0) return;
    this.delayed += 1;
    this.delayedMs += waitMs;
    if (signal) await abortableSleep(waitMs, signal);
    else await new Promise((resolve) => setTimeout(resolve, waitMs));
    if (signal?.aborted) throw new MessageHeld(0, 'stopping while waiting for a rate-limit slot');
  }

  status(): RateLimitStatus {
    return { perSecond: this.perSecond, burst: this.burst, delayed: this.delayed, delayedMs: Math.round(this.delayedMs) };
  }
}
