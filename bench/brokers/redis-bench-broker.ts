/** bench `--broker redis`: RedisBroker, an ioredis pipeline of XADDs, an XREAD BLOCK watcher. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisBroker } from '@protean-ts/redis';
import { waitForArrivals, type ArrivalWatcher, type BenchBroker } from './bench-broker.js';
import { deleteRedisKeys } from '../redis-keys.js';

const URI = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function redisBenchBroker(): BenchBroker {
  return {
    kind: 'redis',
    rawClient: 'ioredis',
    newPrefix: (label) => `bench:${label}:${randomBytes(4).toString('hex')}:`,
    frameworkBroker: (name, prefix) => new RedisBroker(name, { provider: 'redis', uri: URI, stream_prefix: prefix }),
    async rawPublisher() {
      const redis = new Redis(URI);
      return {
        async publish(prefix, messages) {
          const pipeline = redis.pipeline();
          for (const m of messages)
            pipeline.xadd(`${prefix}${m.stream}`, 'MAXLEN', '~', '100000', '*', 'envelope', m.envelope, 'type', m.messageType, 'id', m.messageId);
          await pipeline.exec();
        },
        close: async () => redis.disconnect(),
      };
    },
    async watch(prefix, stream) {
      return new RedisStreamWatcher(`${prefix}${stream}`);
    },
    async drop(prefix) {
      const redis = new Redis(URI);
      await deleteRedisKeys(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Reads the stream as a consumer would (XREAD BLOCK on a connection of its own). */
class RedisStreamWatcher implements ArrivalWatcher {
  readonly arrivals = new Map<string, number>();
  private readonly redis = new Redis(URI);
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly key: string) {
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

  waitFor(count: number, timeoutMs: number): Promise<void> {
    return waitForArrivals(this.arrivals, count, timeoutMs, this.key);
  }

  async close(): Promise<void> {
    this.running = false;
    await this.loop;
    this.redis.disconnect();
  }
}
