import { describe, expect, it } from 'vitest';
import { BrokerSettingsError } from '@protean-ts/core';
import { RabbitMQBroker, RABBITMQ_DEFAULT_DELIVERY_LIMIT, RABBITMQ_DEFAULT_MAXLEN } from '../src/index.js';

const make = (settings: Record<string, unknown>) => new RabbitMQBroker('events', { provider: 'rabbitmq', uri: 'amqp://guest:guest@127.0.0.1:5672', ...settings });

describe('rabbitmq broker settings', () => {
  it('takes the documented defaults', async () => {
    const info = await make({ uri: 'amqp://app:pw@127.0.0.1:1' , connect_timeout_ms: 100 }).info();
    expect(info.connected).toBe(false);
    const broker = make({});
    expect(broker.claimIdleMs).toBe(60_000);
    expect(broker.names.groupQueue('shop::order', 'Receipts')).toBe('shop::order@Receipts');
    expect(RABBITMQ_DEFAULT_MAXLEN).toBe(100_000);
    expect(RABBITMQ_DEFAULT_DELIVERY_LIMIT).toBe(20);
  });

  it('prefixes every name with name_prefix', () => {
    const names = make({ name_prefix: 'staging.' }).names;
    expect([names.exchange('s'), names.groupQueue('s', 'g'), names.holdingQueue('s'), names.deadLetterQueue('s'), names.unroutedExchange]).toEqual([
      'staging.s', 'staging.s@g', 'staging.s:unclaimed', 'staging.s:dlq', 'staging.protean.unrouted',
    ]);
  });

  it('rejects an unknown key, suggesting the closest one', () => {
    expect(() => make({ delivery_limt: 3 })).toThrow(BrokerSettingsError);
    expect(() => make({ delivery_limt: 3 })).toThrow(/did you mean "delivery_limit"/);
  });

  it('refuses claim_idle_ms, which would have no effect, saying why', () => {
    expect(() => make({ claim_idle_ms: 5000 })).toThrow(/claim_idle_ms: has no effect with provider "rabbitmq".*remove the key/);
  });

  it('rejects values out of bounds, naming the key', () => {
    expect(() => make({ delivery_limit: 0 })).toThrow(/delivery_limit.*between 1 and/);
    expect(() => make({ maxlen: -1 })).toThrow(/maxlen.*between 0 and/);
    expect(() => make({ connect_timeout_ms: 0 })).toThrow(/connect_timeout_ms/);
    expect(() => make({ name_prefix: 5 })).toThrow(/name_prefix.*must be a string/);
  });

  it('requires an amqp:// or amqps:// uri and never shows its password', () => {
    expect(() => make({ uri: undefined })).toThrow(/uri.*is required/);
    const wrong = (() => {
      try {
        make({ uri: 'redis://app:s3cret@127.0.0.1:6379' });
      } catch (err) {
        return err as Error;
      }
      throw new Error('accepted a redis:// uri');
    })();
    expect(wrong.message).toMatch(/scheme "redis" is not supported; use amqp:\/\/ or amqps:\/\//);
    expect(wrong.message).not.toContain('s3cret');
  });
});
