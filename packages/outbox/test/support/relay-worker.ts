/**
 * A real relay process for the multi-process tests: one PostgreSQL provider, one Redis broker,
 * one OutboxProcessor. Prints `ready` once started; SIGTERM stops it cleanly (batch in flight
 * finished), SIGKILL is what the crash test sends.
 */
import { defaultConfig } from '@protean-ts/core';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { RedisBroker } from '@protean-ts/redis';
import { OutboxProcessor } from '../../src/index.js';
import { slowed } from './slow-broker.js';

export interface RelayWorkerOptions {
  databaseUri: string;
  redisUri: string;
  streamPrefix: string;
  broker: string;
  workerId: string;
  lockSeconds: number;
  messagesPerTick: number;
  tickInterval: number;
  /** Wait this long before each publish: a slow broker, as seen by the processor. */
  publishDelayMs?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as RelayWorkerOptions;
const provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: options.databaseUri, managed: true, pool_size: 3 });
const broker = new RedisBroker(options.broker, { provider: 'redis', uri: options.redisUri, stream_prefix: options.streamPrefix });
const base = defaultConfig().outbox;
const processor = new OutboxProcessor({
  name: `outbox-processor-default-to-${options.broker}`,
  store: provider.outbox,
  broker: options.publishDelayMs ? slowed(broker, options.publishDelayMs) : broker,
  config: {
    ...base,
    broker: options.broker,
    messages_per_tick: options.messagesPerTick,
    tick_interval: options.tickInterval,
    lock_seconds: options.lockSeconds,
  },
  workerId: options.workerId,
});

await provider.connect();
await broker.connect();
await processor.start();
process.stdout.write('ready\n');

process.once('SIGTERM', () => {
  void (async () => {
    await processor.stop();
    await broker.close();
    await provider.close();
    process.exit(0);
  })();
});
