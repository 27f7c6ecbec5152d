import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readConfigKey } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

const PG = '[databases.default]\nprovider = "postgresql"\n';

describe('${VAR} substitution', () => {
  it('fills ${VAR} from the environment inside a longer string', () => {
    const file = tomlFile(`${PG}database_uri = "postgresql://app:\${DB_PASS}@db:5432/shop"`);
    const { config } = loadConfig({ configPath: file, env: { DB_PASS: 'hunter2' } });
    expect(config.databases.default!.database_uri).toBe('postgresql://app:hunter2@db:5432/shop');
  });

  it('uses the default after | when the variable is unset or empty', () => {
    const file = tomlFile(`${PG}database_uri = "\${DATABASE_URL|postgresql://localhost/dev}"`);
    expect(loadConfig({ configPath: file, env: {} }).config.databases.default!.database_uri).toBe('postgresql://localhost/dev');
    expect(loadConfig({ configPath: file, env: { DATABASE_URL: '' } }).config.databases.default!.database_uri).toBe('postgresql://localhost/dev');
    expect(loadConfig({ configPath: file, env: { DATABASE_URL: 'postgresql://x/y' } }).config.databases.default!.database_uri).toBe('postgresql://x/y');
  });

  it('allows an empty default', () => {
    const file = tomlFile('module = "pre-${SUFFIX|}"');
    expect(loadConfig({ configPath: file, env: {} }).config.module).toBe('pre-');
  });

  it('an unset variable without default is a ConfigError naming the variable, the key and the file', () => {
    const file = tomlFile(`${PG}database_uri = "\${DATABASE_URL}"`);
    let caught: unknown;
    try {
      loadConfig({ configPath: file, env: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.file).toBe(file);
    expect(error.problems).toEqual([{ path: 'databases.default.database_uri', message: expect.stringContaining('DATABASE_URL is not set') }]);
    expect(error.message).toContain(file);
  });

  it('reports every missing variable at once, including inside arrays', () => {
    const file = tomlFile('[outbox]\nexternal_brokers = ["${A}"]\n[server.health]\nhost = "${B}"');
    try {
      loadConfig({ configPath: file, env: {} });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.path)).toEqual(['outbox.external_brokers[0]', 'server.health.host']);
    }
  });

  it('coerces a whole-placeholder value to the number or boolean its key expects', () => {
    const file = tomlFile('enable_outbox = "${OUTBOX|true}"\n[server.health]\nport = "${PORT|8080}"');
    const { config } = loadConfig({ configPath: file, env: { PORT: '9123', OUTBOX: 'false' } });
    expect(config.server.health.port).toBe(9123);
    expect(config.enable_outbox).toBe(false);
  });

  it('does not coerce a literal string where a number is expected', () => {
    const file = tomlFile('[server.health]\nport = "8080"');
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/server\.health\.port: must be an integer between 0 and 65535 \(got "8080"\)/);
  });

  it('a placeholder that does not give a number is a validation error', () => {
    const file = tomlFile('[server.health]\nport = "${PORT}"');
    expect(() => loadConfig({ configPath: file, env: { PORT: 'eighty' } })).toThrow(/server\.health\.port.*"eighty"/);
  });

  it('readConfigKey substitutes only the key it reads, after the environment overlay', () => {
    const file = tomlFile('module = "${MOD|src/domain.ts}"\n[databases.default]\ndatabase_uri = "${UNSET}"\n[staging]\nmodule = "src/staging.ts"');
    expect(readConfigKey(file, 'module', { env: {} })).toBe('src/domain.ts');
    expect(readConfigKey(file, 'module', { env: { MOD: 'x.ts' } })).toBe('x.ts');
    expect(readConfigKey(file, 'module', { env: { PROTEAN_ENV: 'staging' } })).toBe('src/staging.ts');
    expect(readConfigKey(file, 'identity_strategy', { env: {} })).toBeUndefined();
    expect(() => readConfigKey(file, 'databases', { env: {} })).toThrow(/UNSET is not set/);
  });
});
