/**
 * The deliveries this process holds (read, not yet acked), by stream, group and stream sequence.
 * JetStream acks by the delivery's ack subject, which only the reader knows; keeping them here
 * is what lets `ack(stream, group, ids)` work by id. A timer sends `+WPI` ("working") for each
 * held delivery every third of `ack_wait`, so a live worker's long handler or read-ahead keeps
 * its messages, for up to `claim_idle_ms` since the read: past that a hung handler lets go and
 * JetStream redelivers it to another worker after `ack_wait`. A crashed worker stops the timer,
 * so its messages come back after `ack_wait`.
 */
import type { NatsDelivery } from './nats-delivery.js';

export interface HeldDelivery {
  delivery: NatsDelivery;
  consumer: string;
  readAt: number;
}

export class NatsHeldMessages {
  private readonly held = new Map<string, HeldDelivery>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly holdForMs: number,
    private readonly heartbeatMs: number,
    private readonly sendWorking: (reply: string) => void,
  ) {}

  hold(stream: string, group: string, consumer: string, delivery: NatsDelivery): void {
    this.held.set(key(stream, group, String(delivery.seq)), { delivery, consumer, readAt: Date.now() });
    this.timer ??= setInterval(() => this.beat(), this.heartbeatMs).unref();
  }

  get(stream: string, group: string, id: string): HeldDelivery | undefined {
    return this.held.get(key(stream, group, id));
  }

  release(stream: string, group: string, id: string): HeldDelivery | undefined {
    const k = key(stream, group, id);
    const found = this.held.get(k);
    this.held.delete(k);
    return found;
  }

  /** How many deliveries `consumer` holds in the group. */
  count(stream: string, group: string, consumer: string): number {
    const prefix = key(stream, group, '');
    let n = 0;
    for (const [k, held] of this.held) if (k.startsWith(prefix) && held.consumer === consumer) n += 1;
    return n;
  }

  /** The (stream, group, consumer) triples holding something, for the membership heartbeat. */
  holders(): Array<{ stream: string; group: string; consumer: string }> {
    const seen = new Map<string, { stream: string; group: string; consumer: string }>();
    for (const [k, held] of this.held) {
      const [stream, group] = k.split('\u0000') as [string, string];
      seen.set(`${stream}\u0000${group}\u0000${held.consumer}`, { stream, group, consumer: held.consumer });
    }
    return [...seen.values()];
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.held.clear();
  }

  private beat(): void {
    const now = Date.now();
    for (const held of this.held.values()) {
      if (now - held.readAt < this.holdForMs) this.sendWorking(held.delivery.reply);
    }
    this.onBeat?.();
  }

  /** Called after each heartbeat (the broker refreshes the membership records). */
  onBeat: (() => void) | null = null;
}

function key(stream: string, group: string, id: string): string {
  return `${stream}\u0000${group}\u0000${id}`;
}
