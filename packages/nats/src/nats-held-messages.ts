/**
 * The deliveries this process holds (read, not yet acked), by stream, group and stream sequence.
 * JetStream acks by the delivery's ack subject, which only the reader knows; keeping them here
 * is what lets `ack(stream, group, ids)` work by id. A timer sends `+WPI` ("working") for each
 * held delivery every third of `ack_wait`, so a live worker keeps what it handles or reads ahead
 * (waiting for its key's turn): a delivery read within `claim_idle_ms`, or held by a consumer
 * that acked something within `claim_idle_ms` (it is making progress, the delivery just waits).
 * A consumer that acked nothing for that long is presumed hung: it lets go, and JetStream
 * redelivers to another worker after `ack_wait`. A crashed worker stops the timer, so its
 * messages come back after `ack_wait`.
 */
import type { NatsDelivery } from './nats-delivery.js';

export interface HeldDelivery {
  delivery: NatsDelivery;
  consumer: string;
  readAt: number;
}

export class NatsHeldMessages {
  private readonly held = new Map<string, HeldDelivery>();
  /** When each consumer last acked (by consumer name). */
  private readonly lastAck = new Map<string, number>();
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

  /** Drops and returns every delivery held for (stream, group), whoever holds it. */
  releaseGroup(stream: string, group: string): HeldDelivery[] {
    const prefix = key(stream, group, '');
    const released: HeldDelivery[] = [];
    for (const [k, held] of this.held) {
      if (!k.startsWith(prefix)) continue;
      this.held.delete(k);
      released.push(held);
    }
    return released;
  }

  /** Records progress: `consumer` just acked one of its deliveries. */
  acked(consumer: string): void {
    this.lastAck.set(consumer, Date.now());
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

  /** Stops the heartbeat and hands back every delivery still held (for `close()` to give back). */
  stop(): HeldDelivery[] {
    const left = [...this.held.values()];
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.held.clear();
    this.lastAck.clear();
    return left;
  }

  private beat(): void {
    const now = Date.now();
    for (const held of this.held.values()) {
      const progressing = now - (this.lastAck.get(held.consumer) ?? 0) < this.holdForMs;
      if (progressing || now - held.readAt < this.holdForMs) this.sendWorking(held.delivery.reply);
    }
    this.onBeat?.();
  }

  /** Called after each heartbeat (the broker refreshes the membership records). */
  onBeat: (() => void) | null = null;
}

function key(stream: string, group: string, id: string): string {
  return `${stream}\u0000${group}\u0000${id}`;
}
