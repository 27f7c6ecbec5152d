/**
 * What this broker instance has read and not yet settled. RabbitMQ knows an unacked delivery only
 * by its channel and delivery tag, and the port acks by message id, so each read delivery is kept
 * here until it is acked, nacked or dead-lettered. When its channel closes (connection lost, the
 * process stops) RabbitMQ puts the message back in its queue and the entry is forgotten.
 * Entries are kept per queue: a stream's exchange copies each message, message id and all, into
 * every group's queue, and one process often holds several groups' copies at once.
 * Consumer names are remembered per group the same way, for `removeIdleConsumers`.
 */
import type { Channel, MessageBody } from 'rabbitmq-client';

export interface PendingDelivery {
  channel: Channel;
  deliveryTag: number;
  queue: string;
  consumer: string;
  /** The body as received, copied to the dead-letter queue unchanged. */
  body: MessageBody;
}

interface ConsumerState {
  lastSeen: number;
}

export class PendingDeliveries {
  private readonly deliveries = new Map<string, PendingDelivery>();
  private readonly consumers = new Map<string, Map<string, ConsumerState>>();

  add(id: string, delivery: PendingDelivery): void {
    this.deliveries.set(entryKey(delivery.queue, id), delivery);
    this.seen(delivery.queue, delivery.consumer);
  }

  /** The live delivery of `id` in `queue`, or undefined when it was settled or its channel closed. */
  take(queue: string, id: string): PendingDelivery | undefined {
    const key = entryKey(queue, id);
    const delivery = this.deliveries.get(key);
    if (!delivery) return undefined;
    this.deliveries.delete(key);
    return delivery.channel.active ? delivery : undefined;
  }

  peek(queue: string, id: string): PendingDelivery | undefined {
    const delivery = this.deliveries.get(entryKey(queue, id));
    return delivery?.channel.active ? delivery : undefined;
  }

  /** Unacked deliveries of `queue` this instance holds. */
  count(queue: string): number {
    this.forgetClosed();
    let n = 0;
    for (const delivery of this.deliveries.values()) if (delivery.queue === queue) n += 1;
    return n;
  }

  seen(queue: string, consumer: string): void {
    let group = this.consumers.get(queue);
    if (!group) this.consumers.set(queue, (group = new Map()));
    group.set(consumer, { lastSeen: Date.now() });
  }

  /** Forgets and returns the consumers of `queue` idle for `idleMs` with nothing pending. */
  removeIdle(queue: string, idleMs: number): string[] {
    this.forgetClosed();
    const group = this.consumers.get(queue);
    if (!group) return [];
    const busy = new Set([...this.deliveries.values()].filter((d) => d.queue === queue).map((d) => d.consumer));
    const now = Date.now();
    const removed: string[] = [];
    for (const [consumer, state] of group) {
      if (!busy.has(consumer) && now - state.lastSeen >= idleMs) {
        group.delete(consumer);
        removed.push(consumer);
      }
    }
    return removed;
  }

  clear(): void {
    this.deliveries.clear();
  }

  private forgetClosed(): void {
    for (const [id, delivery] of this.deliveries) if (!delivery.channel.active) this.deliveries.delete(id);
  }
}

/** Queue names cannot hold a NUL, so the pair cannot collide. */
function entryKey(queue: string, id: string): string {
  return `${queue}\u0000${id}`;
}
