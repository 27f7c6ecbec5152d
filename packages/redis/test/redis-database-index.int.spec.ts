/**
 * The database index in a Redis URI must exist on the server: ioredis alone logs the failed
 * SELECT, then "connection restored", and runs on database 0 (another application's keys).
 * Connecting refuses instead, naming the masked URI, the database and how to fix it.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerSettingsError, configureLogging, isRetryableConnectError, type LogRecord } from '@protean-ts/core';
import { REDIS, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '../src/index.js';
import { uniquePrefix } from './redis-test-support.js';

const up = await servicesUp(REDIS);
const prefix = uniquePrefix('redis-database-index');
const envelope = sampleBrokerEnvelope('orders');
const databases = up ? Number(execFileSync('redis-cli', ['CONFIG', 'GET', 'databases'], { encoding: 'utf8' }).split('\n')[1]) : 16;

describe.skipIf(!up)('redis broker: the database index of its URI', () => {
  const brokers: RedisBroker[] = [];
  const open = (uri: string) => {
    const broker = new RedisBroker('events', { provider: 'redis', uri, stream_prefix: prefix, connect_timeout_ms: 2_000 });
    brokers.push(broker);
    return broker;
  };
  afterEach(async () => {
    await Promise.all(brokers.splice(0).map((b) => b.close()));
  });

  it('regression: refuses to connect to a database the server does not have, instead of running on database 0', async () => {
    const logs: LogRecord[] = [];
    const previous = configureLogging({ level: 'debug', sink: (_line, record) => logs.push(record) });
    try {
      const broker = open(`redis://127.0.0.1:6379/${databases + 83}`);
      const error = await broker.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerSettingsError);
      // Waiting cannot fix it: the server's start ends at once.
      expect(isRetryableConnectError(error)).toBe(false);
      expect((error as Error).message).toBe(
        `[brokers.events] uri: Redis at redis://127.0.0.1:6379/${databases + 83} has no database ${databases + 83} ` +
          `(it answered "ERR DB index is out of range"; it has ${databases} (0 to ${databases - 1})); ` +
          'use an index it has as the path of uri (e.g. /0), or raise `databases` in redis.conf',
      );
      // Every command connects first, and fails the same way: nothing is written to database 0.
      await expect(broker.publish({ stream: 'orders', envelope })).rejects.toThrow(/has no database/);
      expect(execFileSync('redis-cli', ['-n', '0', 'EXISTS', `${prefix}orders`], { encoding: 'utf8' }).trim()).toBe('0');
      // Not reported as an outage that recovered.
      expect(logs.map((r) => r.msg)).not.toContain('Redis connection lost; retrying in the background');
      expect(logs.map((r) => r.msg)).not.toContain('Redis connection restored');
    } finally {
      configureLogging(previous);
    }
  });

  it('masks the password of the URI it names', async () => {
    // A user of the test's own, so Redis accepts the password and the database is what fails.
    const user = `pt-dbidx-${randomUUID().slice(0, 8)}`;
    execFileSync('redis-cli', ['ACL', 'SETUSER', user, 'on', '>s3cr@t-pw', '~*', '&*', '+@all']);
    try {
      const broker = open(`redis://${user}:s3cr%40t-pw@127.0.0.1:6379/${databases}`);
      const error = await broker.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerSettingsError);
      expect((error as Error).message).toContain(`Redis at redis://${user}:***@127.0.0.1:6379/${databases} has no database ${databases}`);
      expect((error as Error).message).not.toMatch(/s3cr/);
    } finally {
      execFileSync('redis-cli', ['ACL', 'DELUSER', user]);
    }
  });

  it('uses a database the server has, and its keys stay in that database', async () => {
    const database = databases - 1;
    const broker = open(`redis://127.0.0.1:6379/${database}`);
    await broker.connect();
    await broker.publish({ stream: 'orders', envelope });
    expect(execFileSync('redis-cli', ['-n', String(database), 'XLEN', `${prefix}orders`], { encoding: 'utf8' }).trim()).toBe('1');
    expect(execFileSync('redis-cli', ['-n', '0', 'EXISTS', `${prefix}orders`], { encoding: 'utf8' }).trim()).toBe('0');
    execFileSync('redis-cli', ['-n', String(database), 'DEL', `${prefix}orders`]);
  });
});
