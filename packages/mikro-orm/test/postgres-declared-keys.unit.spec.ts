/**
 * The postgresql adapter declares its `[databases.<name>]` keys to the config loader (issue 10):
 * `pool_siz` or `shema` is warned about with a suggestion (by `config check` and at start)
 * instead of being ignored, and a key/value connection string never has its password echoed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigWithAdapters } from '@protean-ts/core';
import { PostgresSettingsError, readPostgresSettings } from '../src/index.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pg-keys-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

function toml(text: string): string {
  const file = path.join(folder, `${Math.random().toString(36).slice(2)}.toml`);
  fs.writeFileSync(file, text);
  return file;
}

const PG = '[databases.default]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app:hunter2@db/shop"\n';

describe('postgresql keys declared to the config loader', () => {
  it('warns about misspelt keys with a suggestion, and drops them', async () => {
    const file = toml(`${PG}pool_siz = 3\nshema = "sales"\nschema = "shop"`);
    const loaded = await loadConfigWithAdapters({ configPath: file, env: {} });
    expect(loaded.warnings).toEqual([
      `${path.basename(file)}: unknown key \`databases.default.pool_siz\` for provider "postgresql" is ignored; did you mean \`pool_size\`?`,
      `${path.basename(file)}: unknown key \`databases.default.shema\` for provider "postgresql" is ignored; did you mean \`schema\`?`,
    ]);
    expect(loaded.config.databases.default).toEqual({
      provider: 'postgresql',
      database_uri: 'postgresql://app:hunter2@db/shop',
      schema: 'shop',
      managed: true,
      pool_size: 10,
    });
  });

  it('checks the declared types in config, naming key and file', async () => {
    const file = toml(`${PG}debug = "yes"`);
    const error = await loadConfigWithAdapters({ configPath: file, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ path: 'databases.default.debug', message: 'must be true or false (got "yes")' }]);
  });

  it('requires database_uri in config', async () => {
    const error = await loadConfigWithAdapters({ configPath: toml('[databases.default]\nprovider = "postgresql"'), env: {} }).catch((e: unknown) => e);
    expect((error as ConfigError).problems).toEqual([{ path: 'databases.default.database_uri', message: 'is required for provider "postgresql"' }]);
  });

  it.each([["host=db password='hunter2 x' user=app"], ['host=db password=hunter2 user=app']])(
    'a key/value connection string %j is refused with its password masked',
    (uri) => {
      let caught: unknown;
      try {
        readPostgresSettings('default', { provider: 'postgresql', database_uri: uri, managed: true, pool_size: 10 });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PostgresSettingsError);
      expect((caught as Error).message).toContain('[databases.default] database_uri must be a URI starting with postgresql://');
      expect((caught as Error).message).not.toContain('hunter2');
    },
  );

  it('a database_uri given as a list or a pool_size given a URI never echoes the password', () => {
    const settings = { provider: 'postgresql', managed: true, pool_size: 10 };
    expect(() => readPostgresSettings('default', { ...settings, database_uri: ['postgresql://a:hunter2@h/db'] as unknown as string })).toThrow(
      /database_uri is required as a string.*\*\*\*/,
    );
    expect(() =>
      readPostgresSettings('default', { ...settings, database_uri: 'postgresql://h/db', pool_size: 'postgresql://a:hunter2@h/db' as unknown as number }),
    ).toThrow(/pool_size must be an integer between 1 and 10000, got "postgresql:\/\/a:\*\*\*@h\/db"/);
  });
});
