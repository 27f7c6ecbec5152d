/**
 * bench `--broker nats`: NatsBroker; the raw baseline publishes a batch as concurrent JetStream
 * publishes with `Nats-Msg-Id` (what a careful hand-written relay does with @nats-io/jetstream)
 * and awaits their acknowledgements; the watcher is an ordered push consumer on the subject.
 */
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { NatsBroker, natsToken } from '@protean-ts/nats';
import { waitForArrivals, type ArrivalWatcher, type BenchBroker } from './bench-broker.js';

const URI = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const SERVERS = new URL(URI).host;
/** The adapter's subjects: `protean.<stream_prefix><escaped stream>`. */
const subjectOf = (prefix: string, stream: string) => `protean.${prefix}${natsToken(stream)}`;

export function natsBenchBroker(): BenchBroker {
  return {
    kind: 'nats',
    rawClient: '@nats-io/jetstream',
    newPrefix: (label) => `bench-${label}-${randomBytes(4).toString('hex')}-`,
    frameworkBroker: (name, prefix) => new NatsBroker(name, { provider: 'nats', uri: URI, stream_prefix: prefix }),
    async rawPublisher() {
      const nc = await connect({ servers: SERVERS });
      const js = jetstream(nc);
      return {
        async publish(prefix, messages) {
          await Promise.all(messages.map((m) => js.publish(subjectOf(prefix, m.stream), m.envelope, { msgID: m.messageId })));
        },
        close: () => nc.close(),
      };
    },
    async watch(prefix, stream) {
      const nc = await connect({ servers: SERVERS });
      // The stream must exist before either side publishes; created as the adapter would.
      const jsm = await jetstreamManager(nc);
      const name = `${prefix}${natsToken(stream)}`;
      await jsm.streams
        .add({ name, subjects: [subjectOf(prefix, stream)], storage: StorageType.File, retention: RetentionPolicy.Limits, duplicate_window: 120_000_000_000 })
        .catch(() => undefined);
      return new NatsStreamWatcher(nc, name);
    },
    async drop(prefix) {
      const nc = await connect({ servers: SERVERS });
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names())
        if (name.startsWith(prefix) || name === `KV_${prefix}protean_consumers`) await jsm.streams.delete(name).catch(() => undefined);
      await nc.close();
    },
  };
}

class NatsStreamWatcher implements ArrivalWatcher {
  readonly arrivals = new Map<string, number>();
  private readonly loop: Promise<void>;
  private stop: (() => void) | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly stream: string,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(this.stream);
    const messages = await consumer.consume();
    this.stop = () => void messages.stop();
    for await (const m of messages) {
      const id = m.headers?.get('Nats-Msg-Id') ?? String(m.seq);
      if (!this.arrivals.has(id)) this.arrivals.set(id, performance.now());
    }
  }

  waitFor(count: number, timeoutMs: number): Promise<void> {
    return waitForArrivals(this.arrivals, count, timeoutMs, this.stream);
  }

  async close(): Promise<void> {
    while (!this.stop) await new Promise((resolve) => setTimeout(resolve, 10));
    this.stop();
    await this.loop;
    await this.nc.close();
  }
}
