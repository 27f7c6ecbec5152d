import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerSettingsError, BrokerUnavailableError, configureLogging, isRetryableConnectError, type LogRecord } from '@protean-ts/core';
import { REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { eventually, freePort, killRedisServer, startRedisServer, uniquePrefix } from './redis-test-support.js';

// The throwaway servers need the redis-server binary, which comes with a Redis install.
const up = await servicesUp(REDIS);
const prefix = uniquePrefix('redis-outage');
const envelope = sampleBrokerEnvelope('orders');

describe.skipIf(!up)('redis broker during an outage', () => {
  const brokers: RedisBroker[] = [];
  const servers: ChildProcess[] = [];
  const open = (uri: string) => {
    const broker = new RedisBroker('events', { provider: 'redis', uri, stream_prefix: prefix, connect_timeout_ms: 2_000 });
    brokers.push(broker);
    return broker;
  };
  afterEach(async () => {
    await Promise.all(brokers.splice(0).map((b) => b.close()));
    await Promise.all(servers.splice(0).map(killRedisServer));
  });

  it('fails fast with BrokerUnavailableError naming the broker and the masked URI when nothing listens', { timeout: 10_000 }, async () => {
    const port = await freePort();
    const logs: LogRecord[] = [];
    const previous = configureLogging({ level: 'debug', sink: (_line, record) => logs.push(record) });
    try {
      const broker = open(`redis://app:s3cr%40t-pw@127.0.0.1:${port}/0`);
      const error = await broker.publish({ stream: 'orders', envelope }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerUnavailableError);
      const message = (error as Error).message;
      expect(message).toContain('Broker "events"');
      expect(message).toContain(`redis://app:***@127.0.0.1:${port}/0`);
      expect(message).toContain('ECONNREFUSED');
      // Later calls do not wait for the background reconnect either.
      await expect(broker.publishBatch([{ stream: 'orders', envelope }])).rejects.toThrow(BrokerUnavailableError);
      await expect(broker.read('orders', 'g', 'c', { count: 1, blockMs: 1_000 })).rejects.toThrow(BrokerUnavailableError);
      expect(await broker.ping()).toBe(false);
      const info = await broker.info();
      expect(info.connected).toBe(false);
      const everything = JSON.stringify([message, info, logs]);
      expect(everything).not.toContain('s3cr');
      expect(logs.some((r) => r.level === 'warn' && r.logger === 'broker.redis')).toBe(true);
    } finally {
      configureLogging(previous);
    }
  });

  it('connect() keeps failing with the reason (retryable) while nothing listens, and succeeds once Redis is up', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const broker = open(`redis://127.0.0.1:${port}`);
    const first = await broker.connect().catch((e: unknown) => e);
    // A second connect() while ioredis reconnects in the background still says why.
    const second = await broker.connect().catch((e: unknown) => e);
    for (const error of [first, second]) {
      expect(error).toBeInstanceOf(BrokerUnavailableError);
      expect(isRetryableConnectError(error)).toBe(true);
      expect((error as Error).message).toContain('ECONNREFUSED');
    }
    servers.push(await startRedisServer(port));
    await eventually(
      'connect() to succeed',
      () =>
        broker.connect().then(
          () => true,
          () => false,
        ),
      15_000,
    );
    expect(await broker.ping()).toBe(true);
  });

  it('connect() with credentials Redis refuses is a settings error, not an outage to wait for', async () => {
    const broker = open('redis://pt-nobody:wrong-pw@127.0.0.1:6379');
    const error = await broker.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerSettingsError);
    expect(isRetryableConnectError(error)).toBe(false);
    expect((error as Error).message).toMatch(
      /^\[brokers\.events\] uri: Redis at redis:\/\/pt-nobody:\*+@127\.0\.0\.1:6379 refused the credentials \(WRONGPASS .*\); fix the user and password in uri$/,
    );
    expect((error as Error).message).not.toContain('wrong-pw');
  });

  it('fails while Redis is down and works again with the same broker once it is back', { timeout: 30_000 }, async () => {
    const port = await freePort();
    servers.push(await startRedisServer(port));
    const broker = open(`redis://127.0.0.1:${port}`);
    await broker.ensureGroup('orders', 'g');
    await broker.publish({ stream: 'orders', envelope });
    expect(await broker.read('orders', 'g', 'c', { count: 10, blockMs: 0 })).toHaveLength(1);

    // A read blocked when Redis dies must end with an outage error, not hang until blockMs.
    const blocked = broker.read('orders', 'g', 'c', { count: 10, blockMs: 60_000 }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killRedisServer(servers.pop()!);
    expect(await blocked).toBeInstanceOf(BrokerUnavailableError);
    await expect(broker.publish({ stream: 'orders', envelope })).rejects.toThrow(BrokerUnavailableError);
    await expect(
      broker.publishBatch([
        { stream: 'orders', envelope },
        { stream: 'orders', envelope },
      ]),
    ).rejects.toThrow(BrokerUnavailableError);
    await expect(broker.ack('orders', 'g', ['1-0'])).rejects.toThrow(BrokerUnavailableError);
    expect(await broker.ping()).toBe(false);

    servers.push(await startRedisServer(port));
    await eventually('the broker reconnects', () => broker.ping());
    // The restarted server is empty (no persistence): the group comes back on first read.
    const id = await broker.publish({ stream: 'orders', envelope });
    const [message] = await broker.read('orders', 'g', 'c', { count: 10, blockMs: 1_000 });
    expect(message).toMatchObject({ id, envelope });
    expect((await broker.info()).connected).toBe(true);
  });
});
