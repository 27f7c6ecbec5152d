/**
 * The broker a bench runs against, chosen with `--broker <redis|nats|rabbitmq>` (default redis):
 * how the framework's adapter is built, how a raw client publishes a batch (the baseline), how a
 * plain consumer sees messages arrive (where latency is measured), and how a run's streams are
 * removed.
 */
import type { Broker } from '@protean-ts/core';

export interface RawMessage {
  stream: string;
  messageId: string;
  messageType: string;
  /** The envelope as JSON, as the raw relay builds it. */
  envelope: string;
}

export interface RawPublisher {
  /** Publishes the batch the way a careful hand-written relay would; resolves once the broker has it. */
  publish(prefix: string, messages: readonly RawMessage[]): Promise<void>;
  close(): Promise<void>;
}

export interface ArrivalWatcher {
  /** Message id → performance.now() when a plain consumer first saw it. */
  readonly arrivals: Map<string, number>;
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface BenchBroker {
  kind: 'redis' | 'nats' | 'rabbitmq';
  /** The raw client, e.g. `ioredis`, for labels. */
  rawClient: string;
  /** A namespace (stream prefix) no other run uses. */
  newPrefix(label: string): string;
  /** The framework's adapter on that namespace. */
  frameworkBroker(name: string, prefix: string): Broker;
  rawPublisher(): Promise<RawPublisher>;
  /** Starts watching one stream of the namespace before anything is published to it. */
  watch(prefix: string, stream: string): Promise<ArrivalWatcher>;
  /** Removes the namespace's streams (on RabbitMQ: the exchanges and queues behind them). */
  drop(prefix: string): Promise<void>;
}

export async function waitForArrivals(arrivals: Map<string, number>, count: number, timeoutMs: number, where: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (arrivals.size < count) {
    if (performance.now() > deadline) throw new Error(`only ${arrivals.size} of ${count} messages reached ${where} in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** `--broker <name>` (or `--broker=<name>`) from argv, default redis. */
export function brokerArgument(argv: readonly string[] = process.argv.slice(2)): BenchBroker['kind'] {
  const at = argv.findIndex((a) => a === '--broker' || a.startsWith('--broker='));
  const name = at < 0 ? 'redis' : argv[at]!.includes('=') ? argv[at]!.split('=')[1] : argv[at + 1];
  if (name === 'redis' || name === 'nats' || name === 'rabbitmq') return name;
  throw new Error(`--broker must be redis, nats or rabbitmq, got ${JSON.stringify(name)}`);
}

export async function selectBenchBroker(argv: readonly string[] = process.argv.slice(2)): Promise<BenchBroker> {
  const kind = brokerArgument(argv);
  if (kind === 'nats') return (await import('./nats-bench-broker.js')).natsBenchBroker();
  if (kind === 'rabbitmq') return (await import('./rabbitmq-bench-broker.js')).rabbitmqBenchBroker();
  return (await import('./redis-bench-broker.js')).redisBenchBroker();
}
