import { describe, expect, it } from 'vitest';
import { BrokerSettingsError } from '@protean-ts/core';
import { RabbitMQBroker, RABBITMQ_DEFAULT_DELIVERY_LIMIT, RABBITMQ_DEFAULT_MANAGEMENT_STATS_INTERVAL_MS, RABBITMQ_DEFAULT_MAXLEN } from '../src/index.js';
import { readRabbitMQBrokerSettings } from '../src/rabbitmq-broker-settings.js';

const make = (settings: Record<string, unknown>) =>
  new RabbitMQBroker('events', { provider: 'rabbitmq', uri: 'amqp://guest:guest@127.0.0.1:5672', ...settings });

describe('rabbitmq broker settings', () => {
  it('takes the documented defaults', () => {
    const broker = make({});
    expect(broker.claimIdleMs).toBe(60_000);
    expect(broker.names.groupQueue('shop::order', 'Receipts')).toBe('shop::order@Receipts');
    expect(RABBITMQ_DEFAULT_MAXLEN).toBe(100_000);
    expect(RABBITMQ_DEFAULT_DELIVERY_LIMIT).toBe(20);
  });

  it('prefixes every name with name_prefix', () => {
    const names = make({ name_prefix: 'staging.' }).names;
    expect([names.exchange('s'), names.groupQueue('s', 'g'), names.holdingQueue('s'), names.deadLetterQueue('s'), names.unroutedExchange]).toEqual([
      'staging.s',
      'staging.s@g',
      'staging.s:unclaimed',
      'staging.s:dlq',
      'staging.protean.unrouted',
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

  describe('management_uri', () => {
    const read = (settings: Record<string, unknown>) =>
      readRabbitMQBrokerSettings('events', { provider: 'rabbitmq', uri: 'amqp://app:amqp-pw@127.0.0.1:5672/shop%2Fprod', ...settings });
    const failure = (settings: Record<string, unknown>) => {
      try {
        read(settings);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('accepted the settings');
    };

    it('is optional: without it pending is read over AMQP only', () => {
      expect(read({}).management).toBeNull();
    });

    it('keeps the credentials out of the address and the masked form, and takes the vhost from the uri', () => {
      const settings = read({ management_uri: 'http://monitor:p%40ss@127.0.0.1:15672/' });
      expect(settings.management).toEqual({
        baseUrl: 'http://127.0.0.1:15672',
        maskedUri: 'http://monitor:***@127.0.0.1:15672/',
        username: 'monitor',
        password: 'p@ss',
        statsIntervalMs: RABBITMQ_DEFAULT_MANAGEMENT_STATS_INTERVAL_MS,
      });
      expect(settings.vhost).toBe('shop/prod');
      expect(settings.secrets).toEqual(expect.arrayContaining(['amqp-pw', 'p%40ss', 'p@ss']));
      expect(read({ management_uri: 'https://127.0.0.1/rabbitmq/' }).management?.baseUrl).toBe('https://127.0.0.1/rabbitmq');
      expect(readRabbitMQBrokerSettings('events', { provider: 'rabbitmq', uri: 'amqp://127.0.0.1' }).vhost).toBe('/');
    });

    it('must be an http(s) URI, named in the error with its password masked', () => {
      const wrong = failure({ management_uri: 'amqp://guest:s3cret@127.0.0.1:15672' });
      expect(wrong).toMatch(/\[brokers\.events\] management_uri: scheme "amqp" is not supported; use http:\/\/ or https:\/\//);
      expect(wrong).not.toContain('s3cret');
      expect(failure({ management_uri: 15672 })).toMatch(/management_uri: is required as a string/);
    });

    it('takes management_stats_interval_ms, an integer of at least 1 ms, only alongside it', () => {
      expect(read({ management_uri: 'http://127.0.0.1:15672', management_stats_interval_ms: 10_000 }).management?.statsIntervalMs).toBe(10_000);
      expect(failure({ management_uri: 'http://127.0.0.1:15672', management_stats_interval_ms: 0 })).toMatch(
        /management_stats_interval_ms: must be an integer between 1 and/,
      );
      expect(failure({ management_uri: 'http://127.0.0.1:15672', management_stats_interval_ms: '5s' })).toMatch(
        /management_stats_interval_ms: must be an integer/,
      );
      expect(failure({ management_stats_interval_ms: 5_000 })).toMatch(
        /management_stats_interval_ms: has no effect without management_uri; set management_uri .* or remove the key/,
      );
    });
  });
});
