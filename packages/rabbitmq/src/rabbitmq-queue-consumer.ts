/**
 * One long-lived consumer per group queue and broker instance, started by the first blocking
 * read and kept: deliveries (up to the prefetch, the read's count) wait in a buffer that reads
 * take from. Starting and cancelling a consumer per read would cost a quorum queue two Raft log
 * entries each time, which under load slowed every publish to it. A buffered delivery belongs to
 * this instance like a read one; when the channel closes RabbitMQ puts it back in the queue.
 */
import type { AsyncMessage, Channel, Connection } from 'rabbitmq-client';

export class QueueConsumer {
  private channel: Channel | null = null;
  private starting: Promise<Channel> | null = null;
  private readonly buffer: AsyncMessage[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly connection: () => Connection,
    readonly queue: string,
  ) {}

  /** Delivered to this instance and not yet read. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Up to `count` buffered deliveries, with the channel to ack them on. */
  take(count: number): { channel: Channel; deliveries: AsyncMessage[] } | null {
    if (!this.channel?.active || this.buffer.length === 0) return null;
    return { channel: this.channel, deliveries: this.buffer.splice(0, count) };
  }

  /** Starts the consumer when needed and waits up to `blockMs` (or `wake()`) for a delivery. */
  async waitForDeliveries(prefetch: number, blockMs: number): Promise<void> {
    await this.start(prefetch);
    if (this.buffer.length > 0) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, blockMs);
      this.waiters.add(done);
    });
  }

  /** Ends every wait at once (close()). */
  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  async close(): Promise<void> {
    this.wakeAll();
    const channel = this.channel;
    this.channel = null;
    this.buffer.length = 0;
    if (channel?.active) await channel.close().catch(() => undefined);
  }

  private async start(prefetch: number): Promise<Channel> {
    if (this.channel?.active) return this.channel;
    this.starting ??= (async () => {
      this.buffer.length = 0;
      const channel = await this.connection().acquire();
      channel.once('close', () => {
        // Whatever was buffered went back to the queue with the channel.
        if (this.channel === channel) {
          this.channel = null;
          this.buffer.length = 0;
        }
        this.wakeAll();
      });
      await channel.basicQos({ prefetchCount: prefetch });
      // Set before consuming: a delivery is never dropped on its way into the buffer.
      this.channel = channel;
      await channel.basicConsume({ queue: this.queue, noAck: false }, (message) => {
        if (this.channel !== channel) return;
        this.buffer.push(message);
        // rabbitmq-client hands over each delivery with setImmediate: by the time this one runs,
        // the rest of the same socket read is in the buffer, and the read takes them as one batch.
        if (this.buffer.length === 1) setImmediate(() => this.wakeAll());
        if (this.buffer.length >= prefetch) this.wakeAll();
      });
      return channel;
    })().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }
}
