/**
 * The shop's domain.toml: the embedded default by default, PostgreSQL and Redis with
 * PROTEAN_ENV=production, URIs from the environment. The repository root's domain.toml names
 * the shop as its module and must resolve to exactly the same settings.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, type DomainConfig } from '@protean-ts/core';
// The adapters declare their keys when imported (as domain.init() and `config check` import them),
// so the production overlay's adapter keys are checked here too.
import '@protean-ts/mikro-orm';
import '@protean-ts/redis';
import '@protean-ts/nats';
import '@protean-ts/rabbitmq';

const shopToml = fileURLToPath(new URL('../domain.toml', import.meta.url));
const rootToml = fileURLToPath(new URL('../../../domain.toml', import.meta.url));

function load(file: string, env: Record<string, string>): DomainConfig {
  const { config, warnings } = loadConfig({ configPath: file, env });
  expect(warnings).toEqual([]);
  return config;
}

const withoutModule = ({ module: _module, ...rest }: DomainConfig & { module?: unknown }) => rest;

describe('domain.toml', () => {
  it('runs on the embedded default, handling events asynchronously (the payment timeouts need it)', () => {
    const config = load(shopToml, {});
    expect(config.databases.default!.provider).toBe('memory');
    expect(config.brokers.default!.provider).toBe('inline');
    expect(config.event_processing).toBe('async');
    expect(config.command_processing).toBe('sync');
    expect(config.outbox.tick_interval).toBe(0.02);
  });

  it("keeps stock items in the default database's event store, snapshotted every 5 replayed events", () => {
    for (const env of [{}, { PROTEAN_ENV: 'production' }] as Record<string, string>[]) {
      const config = load(shopToml, env);
      expect(config.snapshot_threshold).toBe(5);
      expect(config.event_store).toMatchObject({ database: 'default' });
    }
  });

  it('switches to PostgreSQL and Redis for production, with local defaults', () => {
    const config = load(shopToml, { PROTEAN_ENV: 'production' });
    expect(config.event_processing).toBe('async');
    expect(config.outbox.tick_interval).toBe(1);
    expect(config.databases.default).toMatchObject({ provider: 'postgresql', database_uri: 'postgresql://postgres@127.0.0.1:5432/shop' });
    expect(config.brokers.default).toMatchObject({ provider: 'redis', uri: 'redis://127.0.0.1:6379', stream_prefix: '' });
    expect(config.server.health.port).toBe(8080);
  });

  it('switches to PostgreSQL and RabbitMQ with PROTEAN_ENV=rabbitmq, the vhost from RABBITMQ_URL, its management API from RABBITMQ_MANAGEMENT_URL', () => {
    const config = load(shopToml, {
      PROTEAN_ENV: 'rabbitmq',
      RABBITMQ_URL: 'amqp://shop:pw@mq:5672/shop-1',
      RABBITMQ_MANAGEMENT_URL: 'https://shop:pw@mq:15671',
    });
    expect(config.event_processing).toBe('async');
    expect(config.databases.default).toMatchObject({ provider: 'postgresql', database_uri: 'postgresql://postgres@127.0.0.1:5432/shop' });
    expect(config.brokers.default).toEqual({
      provider: 'rabbitmq',
      uri: 'amqp://shop:pw@mq:5672/shop-1',
      delivery_limit: 20,
      management_uri: 'https://shop:pw@mq:15671',
    });
    expect(load(shopToml, { PROTEAN_ENV: 'rabbitmq' }).brokers.default).toMatchObject({
      uri: 'amqp://guest:guest@127.0.0.1:5672',
      management_uri: 'http://guest:guest@127.0.0.1:15672',
    });
  });

  it('switches to PostgreSQL and NATS JetStream with PROTEAN_ENV=nats, with local defaults', () => {
    const config = load(shopToml, { PROTEAN_ENV: 'nats', NATS_URL: 'nats://bus:4223', NATS_STREAM_PREFIX: 'test-1-' });
    expect(config.event_processing).toBe('async');
    expect(config.databases.default).toMatchObject({ provider: 'postgresql' });
    expect(config.brokers.default).toMatchObject({ provider: 'nats', uri: 'nats://bus:4223', stream_prefix: 'test-1-', claim_idle_ms: 10000 });
    expect(load(shopToml, { PROTEAN_ENV: 'nats' }).brokers.default).toMatchObject({ uri: 'nats://127.0.0.1:4222', stream_prefix: '' });
  });

  it('takes the URIs, the stream prefix and the health port from the environment', () => {
    const config = load(shopToml, {
      PROTEAN_ENV: 'production',
      DATABASE_URL: 'postgresql://shop:secret@db:5432/orders',
      REDIS_URL: 'redis://cache:6380/2',
      REDIS_STREAM_PREFIX: 'test-1:',
      HEALTH_PORT: '9123',
    });
    expect(config.databases.default!.database_uri).toBe('postgresql://shop:secret@db:5432/orders');
    expect(config.brokers.default).toMatchObject({ uri: 'redis://cache:6380/2', stream_prefix: 'test-1:' });
    expect(config.server.health.port).toBe(9123);
  });

  it('is mirrored by the repository root domain.toml, which names the shop as its module', () => {
    for (const env of [{}, { PROTEAN_ENV: 'production' }, { PROTEAN_ENV: 'nats' }, { PROTEAN_ENV: 'rabbitmq' }] as Record<string, string>[]) {
      expect(withoutModule(load(rootToml, env))).toEqual(withoutModule(load(shopToml, env)));
    }
    expect(load(rootToml, {}).module).toBe('examples/shop/src/domain.ts');
    expect(load(shopToml, {}).module).toBe('src/domain.ts');
  });
});
