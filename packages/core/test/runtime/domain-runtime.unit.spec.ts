import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  ConfigError,
  Domain,
  field,
  configureLogging,
  DomainNotInitializedError,
  MemoryProvider,
  registerDatabaseProvider,
  UnknownProviderError,
  type LogRecord,
} from '../../src/index.js';
import { brokerFactory, databaseProviderFactory } from '../../src/adapters/registry.js';
import { makeShop, memoryConfig } from './fixtures/shop-domain.js';

describe('domain runtime wiring', () => {
  const logs: LogRecord[] = [];
  let restoreLogging: ReturnType<typeof configureLogging>;
  const opened: { close(): Promise<void> }[] = [];

  beforeEach(() => {
    logs.length = 0;
    restoreLogging = configureLogging({ sink: (_line, record) => logs.push(record), level: 'debug' });
  });
  afterEach(async () => {
    for (const domain of opened.splice(0)) await domain.close();
    configureLogging(restoreLogging);
  });

  it('initializes with memory and inline defaults and exposes config, providers, brokers and the outbox switch', async () => {
    const { domain } = makeShop();
    opened.push(domain);
    await domain.init({ config: memoryConfig({ outbox: { messages_per_tick: 7 } }) });
    expect(domain.config.outbox.messages_per_tick).toBe(7);
    expect(domain.providers.get('default')).toBeInstanceOf(MemoryProvider);
    expect(domain.brokers.get('default')!.provider).toBe('inline');
    expect(domain.outboxEnabled).toBe(true);
    expect(await domain.providers.get('default')!.ping()).toBe(true);
  });

  it('refuses runtime use before init and after close', async () => {
    const shop = makeShop();
    expect(() => shop.domain.repositoryFor(shop.Order)).toThrow(DomainNotInitializedError);
    expect(() => shop.domain.config).toThrow(/call "await domain.init\(\)"/);
    await expect(shop.domain.uow(async () => 1)).rejects.toThrow(DomainNotInitializedError);
    await shop.domain.init({ config: memoryConfig() });
    const broker = shop.domain.brokers.get('default')!;
    await shop.domain.close();
    expect(await broker.ping()).toBe(false);
    expect(() => shop.domain.providers).toThrow(DomainNotInitializedError);
    await shop.domain.init({ config: memoryConfig() });
    opened.push(shop.domain);
    expect(shop.domain.providers.size).toBe(1);
  });

  it('names the [databases.<name>] key and the known providers for an unknown provider', async () => {
    const { domain } = makeShop();
    const attempt = domain.init({ config: { databases: { default: { provider: 'mongo' } } } });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(domain.init({ config: { databases: { default: { provider: 'mongo' } } } })).rejects.toThrow(
      /databases\.default\.provider.*mongo.*memory.*postgresql/s,
    );
  });

  it('the adapter registry itself refuses an unknown kind with the key and the known kinds', async () => {
    const attempt = databaseProviderFactory('reporting', { provider: 'mongo', managed: true, pool_size: 1 });
    await expect(attempt).rejects.toThrow(UnknownProviderError);
    await expect(databaseProviderFactory('reporting', { provider: 'mongo', managed: true, pool_size: 1 })).rejects.toThrow(
      /\[databases\.reporting\] provider = "mongo" is unknown; known providers: .*memory.*postgresql/,
    );
    await expect(brokerFactory('events', { provider: 'kafka' })).rejects.toThrow(/\[brokers\.events\] provider = "kafka".*inline.*redis/);
  });

  it('loads a built-in adapter package on first use (redis registers itself when imported)', async () => {
    const factory = await brokerFactory('events', { provider: 'redis', uri: 'redis://127.0.0.1:6379/0' });
    const broker = factory('events', { provider: 'redis', uri: 'redis://127.0.0.1:6379/0' });
    expect(broker.provider).toBe('redis');
    await broker.close();
  });

  it('uses providers registered by adapter packages, and closes what it opened when init fails', async () => {
    const events: string[] = [];
    registerDatabaseProvider('recording', (name, settings) => {
      const provider = new MemoryProvider(name, settings);
      provider.connect = async () => {
        events.push(`connect ${name}`);
        if (settings.fail) throw new Error(`cannot reach ${name}`);
      };
      provider.close = async () => {
        events.push(`close ${name}`);
      };
      return provider;
    });
    const { domain } = makeShop();
    const config = { databases: { default: { provider: 'recording' }, broken: { provider: 'recording', fail: true } } };
    await expect(domain.init({ config })).rejects.toThrow('cannot reach broken');
    expect(events).toEqual(['connect default', 'connect broken', 'close default', 'close broken']);
    expect(() => domain.providers).toThrow(DomainNotInitializedError);
  });

  it('refuses an aggregate whose database is not configured', async () => {
    const domain = new Domain('Reports');
    @domain.aggregate({ provider: 'reporting' })
    class Report extends BaseAggregate {
      @field.string() title?: string;
    }
    void Report;
    await expect(domain.init({ config: memoryConfig() })).rejects.toThrow(
      /aggregate Report uses database "reporting", which is not configured; add a \[databases.reporting\] table/,
    );
  });

  it('reads domain.toml found from the domain root', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-runtime-'));
    fs.writeFileSync(
      path.join(dir, 'domain.toml'),
      ['event_processing = "async"', '[databases.default]', 'provider = "memory"', '[outbox]', 'messages_per_tick = 11'].join('\n'),
    );
    const domain = new Domain('FromFile', { root: path.join(dir, 'app.ts') });
    opened.push(domain);
    await domain.init();
    expect(domain.config.event_processing).toBe('async');
    expect(domain.config.outbox.messages_per_tick).toBe(11);
    expect(domain.runtime.infrastructure.configFile).toBe(path.join(dir, 'domain.toml'));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs connections with passwords in URIs masked', async () => {
    registerDatabaseProvider('secretive', (name, settings) => new MemoryProvider(name, settings));
    const { domain } = makeShop();
    opened.push(domain);
    await domain.init({ config: { databases: { default: { provider: 'secretive', database_uri: 'postgresql://app:s3cret@db.example:5432/shop' } } } });
    const connected = logs.find((r) => r.msg === 'database connected')!;
    expect(connected).toMatchObject({ logger: 'domain', domain: 'Shop', database: 'default', uri: 'postgresql://app:***@db.example:5432/shop' });
    expect(JSON.stringify(logs)).not.toContain('s3cret');
  });
});
