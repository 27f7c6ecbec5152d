/**
 * Reads a Redis stream as a consumer would (XREAD BLOCK on a connection of its own) and notes
 * when each message id arrived, so latency is measured at the point a subscriber could see it.
 */
import { Redis } from 'ioredis';

export class StreamWatcher {
  readonly arrivals = new Map<string, number>();
  private readonly redis: Redis;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(uri: string, private readonly key: string) {
    this.redis = new Redis(uri);
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let last = '0';
    while (this.running) {
      const reply = (await this.redis.xread('COUNT', 5000, 'BLOCK', 200, 'STREAMS', this.key, last)) as [string, [string, string[]][]][] | null;
      const now = performance.now();
      for (const [, entries] of reply ?? []) {
        for (const [entryId, fields] of entries) {
          last = entryId;
          const at = fields.indexOf('id');
          const messageId = at >= 0 ? fields[at + 1]! : entryId;
          if (!this.arrivals.has(messageId)) this.arrivals.set(messageId, now);
        }
      }
    }
  }

  async waitFor(count: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.arrivals.size < count) {
      if (performance.now() > deadline) throw new Error(`only ${this.arrivals.size} of ${count} messages reached ${this.key} in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  async close(): Promise<void> {
    this.running = false;
    await this.loop;
    this.redis.disconnect();
  }
}
