/**
 * Channels on the broker's one connection. A channel dies with the connection, and RabbitMQ
 * closes one on any channel-level error (a failed passive declare, a precondition), so each kind
 * is acquired lazily and again after it closed. Reads take channels from a pool: a delivery must
 * be acked on the channel that carried it, and a blocked read holds its channel meanwhile.
 */
import type { Channel, Connection } from 'rabbitmq-client';

export class LazyChannel {
  private current: Channel | null = null;
  private opening: Promise<Channel> | null = null;

  constructor(
    private readonly connection: () => Connection,
    private readonly setup: (channel: Channel) => Promise<void> = async () => undefined,
  ) {}

  async get(): Promise<Channel> {
    if (this.current && this.current.active) return this.current;
    this.opening ??= (async () => {
      const channel = await this.connection().acquire();
      await this.setup(channel);
      this.current = channel;
      return channel;
    })().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    const channel = this.current;
    this.current = null;
    if (channel?.active) await channel.close().catch(() => undefined);
  }
}

/** Channels for reads, reused once a read is done with them (their unacked deliveries stay theirs). */
export class ReadChannelPool {
  private readonly idle: Channel[] = [];
  private readonly all = new Set<Channel>();

  constructor(private readonly connection: () => Connection) {}

  async take(): Promise<Channel> {
    for (let channel = this.idle.pop(); channel; channel = this.idle.pop()) {
      if (channel.active) return channel;
      this.all.delete(channel);
    }
    const channel = await this.connection().acquire();
    this.all.add(channel);
    return channel;
  }

  give(channel: Channel): void {
    if (channel.active) this.idle.push(channel);
    else this.all.delete(channel);
  }

  /** Closing a channel hands its unacked deliveries back to their queues. */
  async closeAll(): Promise<void> {
    const channels = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(channels.map((channel) => (channel.active ? channel.close().catch(() => undefined) : Promise.resolve())));
  }
}
