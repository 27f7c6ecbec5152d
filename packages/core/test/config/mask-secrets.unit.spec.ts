import { describe, expect, it } from 'vitest';
import { formatConfig, loadConfig, maskSecrets, maskUri } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

describe('maskUri', () => {
  it.each([
    ['postgresql://app:s3cret@db:5432/shop', 'postgresql://app:***@db:5432/shop'],
    ['redis://:p%40ss@cache:6379/0', 'redis://:***@cache:6379/0'],
    ['rediss://default:tok:en@cache', 'rediss://default:***@cache'],
    ['postgresql://app@db/shop', 'postgresql://app@db/shop'],
    ['postgresql://db/shop?user=app&password=s3cret&sslmode=require', 'postgresql://db/shop?user=app&password=***&sslmode=require'],
    ['connecting to postgresql://app:s3cret@db/shop now', 'connecting to postgresql://app:***@db/shop now'],
    ['no uri here: a:b@c', 'no uri here: a:b@c'],
  ])('%s → %s', (input, output) => {
    expect(maskUri(input)).toBe(output);
  });
});

describe('maskSecrets', () => {
  it('masks URI passwords and secret-named keys without touching the original', () => {
    const file = tomlFile(
      '[databases.default]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app:s3cret@db/shop"\n'
        + '[brokers.default]\nprovider = "redis"\nuri = "redis://:hunter2@cache:6379"\npassword = "hunter2"\napi_key = "k"',
    );
    const { config } = loadConfig({ configPath: file, env: {} });
    const masked = maskSecrets(config);
    expect(masked.databases.default!.database_uri).toBe('postgresql://app:***@db/shop');
    expect(masked.brokers.default).toEqual({ provider: 'redis', uri: 'redis://:***@cache:6379', password: '***', api_key: '***' });
    expect(config.databases.default!.database_uri).toBe('postgresql://app:s3cret@db/shop');
  });

  it('formatConfig prints masked TOML or JSON', () => {
    const file = tomlFile('[databases.default]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app:s3cret@db/shop"');
    const { config } = loadConfig({ configPath: file, env: {} });
    const toml = formatConfig(config, 'toml');
    expect(toml).toContain('[databases.default]');
    expect(toml).toContain('postgresql://app:***@db/shop');
    expect(toml).not.toContain('s3cret');
    const json = JSON.parse(formatConfig(config, 'json'));
    expect(json.databases.default.database_uri).toBe('postgresql://app:***@db/shop');
  });
});
