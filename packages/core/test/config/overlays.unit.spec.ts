import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

const FILE = `
event_processing = "sync"
[databases.default]
provider = "memory"
[server]
messages_per_tick = 10
tick_interval = 1

[staging]
event_processing = "async"
[staging.server]
messages_per_tick = 50
[staging.databases.default]
provider = "postgresql"
database_uri = "postgresql://stage/shop"

[production.server]
messages_per_tick = 500
`;

describe('environment overlays (PROTEAN_ENV)', () => {
  it('without PROTEAN_ENV uses the base and drops every environment table', () => {
    const loaded = loadConfig({ configPath: tomlFile(FILE), env: {} });
    expect(loaded.environment).toBeNull();
    expect(loaded.config.server.messages_per_tick).toBe(10);
    expect(loaded.config).not.toHaveProperty('staging');
    expect(loaded.config).not.toHaveProperty('production');
    expect(loaded.warnings).toEqual([]);
  });

  it('PROTEAN_ENV=staging deep-merges [staging] over the base', () => {
    const loaded = loadConfig({ configPath: tomlFile(FILE), env: { PROTEAN_ENV: 'staging' } });
    expect(loaded.environment).toBe('staging');
    expect(loaded.config.event_processing).toBe('async');
    expect(loaded.config.server.messages_per_tick).toBe(50);
    expect(loaded.config.server.tick_interval).toBe(1); // kept from the base
    expect(loaded.config.databases.default).toEqual({
      provider: 'postgresql',
      database_uri: 'postgresql://stage/shop',
      managed: true,
      pool_size: 10,
    });
    expect(loaded.config).not.toHaveProperty('staging');
  });

  it('another environment picks its own table only', () => {
    const loaded = loadConfig({ configPath: tomlFile(FILE), env: { PROTEAN_ENV: 'production' } });
    expect(loaded.config.server.messages_per_tick).toBe(500);
    expect(loaded.config.event_processing).toBe('sync');
  });

  it('an environment with no table warns and uses the base', () => {
    const loaded = loadConfig({ configPath: tomlFile(FILE), env: { PROTEAN_ENV: 'qa' } });
    expect(loaded.config.server.messages_per_tick).toBe(10);
    expect(loaded.warnings).toEqual([expect.stringMatching(/PROTEAN_ENV=qa but there is no \[qa\] table.*staging, production/)]);
  });

  it('variables in an unused environment table need not be set', () => {
    const file = tomlFile('[production.databases.default]\nprovider = "postgresql"\ndatabase_uri = "${PROD_DB}"');
    expect(() => loadConfig({ configPath: file, env: {} })).not.toThrow();
    expect(() => loadConfig({ configPath: file, env: { PROTEAN_ENV: 'production' } })).toThrow(/PROD_DB is not set/);
  });

  it('overrides apply after the environment table', () => {
    const loaded = loadConfig({
      configPath: tomlFile(FILE),
      env: { PROTEAN_ENV: 'staging' },
      overrides: { server: { messages_per_tick: 3 } },
    });
    expect(loaded.config.server.messages_per_tick).toBe(3);
  });

  it('a table named like a misspelt key is kept as an environment but warned about', () => {
    const loaded = loadConfig({ configPath: tomlFile('[sever]\nmessages_per_tick = 5'), env: {} });
    expect(loaded.config.server.messages_per_tick).toBe(100);
    expect(loaded.warnings).toEqual([
      expect.stringContaining('[sever] is treated as an environment overlay (used when PROTEAN_ENV=sever); did you mean `server`?'),
    ]);
  });
});
