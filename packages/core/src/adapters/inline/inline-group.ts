/**
 * One consumer group of an inline stream: where its delivery cursor stands and which messages
 * are pending (delivered, not yet acked), with their owner, delivery time and delivery count.
 */

export interface PendingEntry {
  /** Absolute position of the entry in its stream. */
  position: number;
  consumer: string;
  /** `-Infinity` after a nack, so the next reclaim takes it whatever its idle threshold. */
  deliveredAt: number;
  deliveryCount: number;
}

export class InlineGroup {
  /** Absolute position of the next entry to deliver. */
  cursor: number;
  /** Keyed by entry id, in first-delivery order, which is id order. */
  readonly pending = new Map<string, PendingEntry>();
  /** Each consumer that read or reclaimed, with when it last did (Redis's consumer `idle`). */
  readonly consumers = new Map<string, number>();

  constructor(
    readonly name: string,
    startPosition: number,
  ) {
    this.cursor = startPosition;
  }

  /** Records that `consumer` asked for messages now, creating it as Redis does. */
  seen(consumer: string, now = Date.now()): void {
    this.consumers.set(consumer, now);
  }

  /** Forgets consumers silent for `idleMs` or longer that own no pending entry; returns their names. */
  removeIdleConsumers(idleMs: number, now = Date.now()): string[] {
    const owners = new Set([...this.pending.values()].map((entry) => entry.consumer));
    const removed: string[] = [];
    for (const [consumer, seenAt] of this.consumers) {
      if (now - seenAt < idleMs || owners.has(consumer)) continue;
      this.consumers.delete(consumer);
      removed.push(consumer);
    }
    return removed;
  }
}
