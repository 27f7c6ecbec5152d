/**
 * Liveness of the inline broker's consumers: when each consumer's last `reportAlive` expires.
 * A consumer that never reported is not known here, so it never counts as dead.
 */

/** Expired reports are forgotten after this long (their consumers' messages were taken long before). */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

export class InlineLiveness {
  private readonly expiresAt = new Map<string, number>();

  report(consumer: string, ttlMs: number, now = Date.now()): void {
    this.expiresAt.set(consumer, now + ttlMs);
    for (const [name, expiry] of this.expiresAt) if (now - expiry > FORGET_AFTER_MS) this.expiresAt.delete(name);
  }

  /** True when `consumer` reported alive once and that report has expired. */
  isDead(consumer: string, now = Date.now()): boolean {
    const expiry = this.expiresAt.get(consumer);
    return expiry !== undefined && expiry <= now;
  }
}
