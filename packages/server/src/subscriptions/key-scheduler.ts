/**
 * Runs the messages a subscription has read, up to `concurrency` partition keys at a time and
 * one message at a time per key, in each key's order. A key whose head must wait (its
 * predecessor is not handled yet, somewhere else) gives its slot up while it waits, so a stuck
 * key holds back only itself. Used by ConsumerLoop; knows nothing of brokers or handlers.
 */
import type { ReceivedMessage } from '@protean-ts/core';

/** What processing a key's head message came to: done with it, or try it again after `afterMs`. */
export type HeadResult = { done: true } | { done: false; afterMs: number };

export interface Queued {
  message: ReceivedMessage;
  /** Partition key (`#<broker id>` for messages without position: each its own key). */
  key: string;
  /** Sequence within the key; 0 when the message has none. */
  sequence: number;
}

export class KeyScheduler {
  private readonly queues = new Map<string, Queued[]>();
  private readonly ready: string[] = [];
  private readonly waiting = new Map<string, NodeJS.Timeout>();
  private readonly queuedIds = new Set<string>();
  /** Keys whose head is being processed, with when that started. */
  private readonly running = new Map<string, number>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private roomWaiters: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly processHead: (item: Queued) => Promise<HeadResult>,
  ) {}

  /** Messages read and not yet done (queued, running or waiting). */
  get size(): number {
    return this.queuedIds.size;
  }

  /**
   * Ids of the messages held: queued behind their key, waiting for a predecessor, or running for
   * less than `maxRunMs` (a run older than that may be hung, and is left for others to take).
   */
  heldIds(maxRunMs: number, now = Date.now()): string[] {
    const ids: string[] = [];
    for (const [key, queue] of this.queues) {
      const runningSince = this.running.get(key);
      queue.forEach((item, i) => {
        if (i > 0 || runningSince === undefined || now - runningSince < maxRunMs) ids.push(item.message.id);
      });
    }
    return ids;
  }

  /** Adds a message to its key, in sequence order (a reclaimed predecessor goes before its successors). */
  add(item: Queued): boolean {
    if (this.stopped || this.queuedIds.has(item.message.id)) return false;
    this.queuedIds.add(item.message.id);
    let queue = this.queues.get(item.key);
    if (!queue) {
      queue = [];
      this.queues.set(item.key, queue);
    }
    // Before the first later sequence, but never in front of a head that is running.
    const first = this.running.has(item.key) ? 1 : 0;
    let at = queue.length;
    while (at > first && item.sequence > 0 && queue[at - 1]!.sequence > item.sequence) at -= 1;
    queue.splice(at, 0, item);
    if (queue.length === 1) this.makeReady(item.key);
    else if (at === 0) this.wake(item.key);
    return true;
  }

  /**
   * Resolves once fewer than `limit` messages are held (read-ahead backpressure), or at
   * `deadline` (epoch ms) so the caller can still take over a dead consumer's messages.
   */
  async roomFor(limit: number, signal: AbortSignal, deadline: number): Promise<void> {
    while (this.size >= limit && !signal.aborted && !this.stopped && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        // Every way out removes the others: a listener left on the signal per wait would pile up
        // (one per message read) and slow every later add.
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        this.roomWaiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /**
   * Stops starting messages, waits for the ones running to finish their current step, and
   * returns every message still held (to give back to the broker).
   */
  async stop(): Promise<ReceivedMessage[]> {
    this.stopped = true;
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    this.ready.length = 0;
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const left = [...this.queues.values()].flat().map((item) => item.message);
    this.queues.clear();
    this.queuedIds.clear();
    this.signalRoom();
    return left;
  }

  private makeReady(key: string): void {
    if (this.stopped) return;
    this.ready.push(key);
    this.pump();
  }

  /** A waiting key whose queue changed (a predecessor arrived): try it now instead of at its timer. */
  private wake(key: string): void {
    const timer = this.waiting.get(key);
    if (!timer) return;
    clearTimeout(timer);
    this.waiting.delete(key);
    this.makeReady(key);
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      this.active += 1;
      void this.runKey(key);
    }
  }

  private async runKey(key: string): Promise<void> {
    try {
      for (;;) {
        const queue = this.queues.get(key);
        const head = queue?.[0];
        if (!queue || !head || this.stopped) return;
        this.running.set(key, Date.now());
        // processHead never throws by contract; a bug there must not lose the key's slot.
        const result = await this.processHead(head)
          .catch((): HeadResult => ({ done: false, afterMs: 1000 }))
          .finally(() => this.running.delete(key));
        if (result.done) {
          queue.shift();
          this.queuedIds.delete(head.message.id);
          this.signalRoom();
        }
        if (this.stopped) return;
        if (!result.done && this.promoteEarlierArrival(queue)) continue;
        if (!result.done) {
          this.waiting.set(
            key,
            setTimeout(() => {
              this.waiting.delete(key);
              this.makeReady(key);
            }, result.afterMs),
          );
          return;
        }
        if (queue.length === 0) {
          this.queues.delete(key);
          return;
        }
      }
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      this.pump();
    }
  }

  /**
   * A message that arrived while the head was running (a reclaimed predecessor) was queued behind
   * it; when the head has to wait, that message may be exactly what it waits for. Puts the queue
   * back in sequence order; true when the head changed.
   */
  private promoteEarlierArrival(queue: Queued[]): boolean {
    const head = queue[0]!;
    queue.sort((a, b) => a.sequence - b.sequence);
    return queue[0] !== head;
  }

  private signalRoom(): void {
    for (const resolve of this.roomWaiters.splice(0)) resolve();
  }
}
