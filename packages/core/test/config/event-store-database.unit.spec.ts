/**
 * `[event_store] database_uri`: the event store in a database of its own, entered by the loader
 * as `[databases.event_store]` with `event_store.database` pointing at it; filled from the
 * environment like any URI, masked wherever configuration is shown, and refused, naming the
 * keys, in every combination that cannot work.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_PROVIDERS, ConfigError, formatConfig, loadConfig, validateConfig, type ConfigProblem } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

const PASSWORD = 'ev3nts-s3cret';
const URI = `postgresql://app:${PASSWORD}@db.internal:5432/events`;
const DEDICATED = `[event_store]\nprovider = "postgresql"\ndatabase_uri = "${URI}"`;

function problemsOf(toml: string, env: Record<string, string> = {}): { problems: readonly ConfigProblem[]; message: string } {
  try {
    loadConfig({ configPath: tomlFile(toml), env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { problems: (error as ConfigError).problems, message: (error as ConfigError).message };
  }
  throw new Error(`expected a ConfigError for:\n${toml}`);
}

describe('[event_store] database_uri', () => {
  it('becomes [databases.event_store] with that provider and URI, and event_store.database names it', () => {
    const { config } = loadConfig({ configPath: tomlFile(DEDICATED), env: {} });
    expect(config.databases.event_store).toEqual({ provider: 'postgresql', database_uri: URI, managed: true, pool_size: 10 });
    expect(config.event_store).toEqual({ provider: 'postgresql', database: 'event_store', database_uri: URI });
    // The aggregates' database is untouched.
    expect(config.databases.default).toEqual({ provider: 'memory', managed: true, pool_size: 10 });
  });

  it('is filled from the environment like any other URI', () => {
    const toml = '[event_store]\nprovider = "postgresql"\ndatabase_uri = "${EVENTS_URI}"';
    const { config } = loadConfig({ configPath: tomlFile(toml), env: { EVENTS_URI: URI } });
    expect(config.databases.event_store?.database_uri).toBe(URI);
  });

  it('an unset variable is an error naming it, not an empty URI', () => {
    const { problems } = problemsOf('[event_store]\nprovider = "postgresql"\ndatabase_uri = "${EVENTS_URI}"');
    expect(problems).toEqual([expect.objectContaining({ path: 'event_store.database_uri', message: expect.stringContaining('EVENTS_URI') })]);
  });

  it("can come from a PROTEAN_ENV table, leaving the file's default store elsewhere", () => {
    const toml = `[production.event_store]\nprovider = "postgresql"\ndatabase_uri = "${URI}"`;
    expect(loadConfig({ configPath: tomlFile(toml), env: {} }).config.event_store.database).toBe('default');
    expect(loadConfig({ configPath: tomlFile(toml), env: { PROTEAN_ENV: 'production' } }).config.event_store.database).toBe('event_store');
  });

  it('is masked in the rendered configuration, under [event_store] and under [databases.event_store]', () => {
    const { config } = loadConfig({ configPath: tomlFile(DEDICATED), env: {} });
    for (const format of ['toml', 'json'] as const) {
      const shown = formatConfig(config, format);
      expect(shown).not.toContain(PASSWORD);
      expect(shown.split('postgresql://app:***@db.internal:5432/events').length - 1).toBe(2);
    }
  });

  it("the inbox may live in the event store's database (its handlers' effects then commit with the events)", () => {
    const { config } = loadConfig({ configPath: tomlFile(`${DEDICATED}\n[inbox]\ndatabase = "event_store"`), env: {} });
    expect(config.inbox.database).toBe('event_store');
  });

  it('validateConfig without `explicit` reads the table as written', () => {
    const providers = { ...BUILTIN_PROVIDERS, databases: ['memory', 'postgresql'] };
    const input = { databases: { default: { provider: 'memory' } }, event_store: { provider: 'postgresql', database_uri: URI } };
    const { config, problems } = validateConfig(input, { providers });
    expect(problems).toEqual([]);
    expect(config.event_store.database).toBe('event_store');
    expect(config.databases.event_store).toMatchObject({ provider: 'postgresql', database_uri: URI });
  });

  it("a postgresql [databases.*] of the user's own may sit beside it", () => {
    const toml = `${DEDICATED}\n[databases.default]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app@db.internal/shop"`;
    const { config } = loadConfig({ configPath: tomlFile(toml), env: {} });
    expect(Object.keys(config.databases).sort()).toEqual(['default', 'event_store']);
  });
});

describe('[event_store] database_uri refused', () => {
  it.each([
    [
      'with event_store.database, naming both keys',
      `${DEDICATED}\ndatabase = "default"`,
      'event_store.database_uri',
      'cannot be set together with event_store.database: the event store lives either in a [databases.<name>] you name (event_store.database, sharing its transactions) or in a database of its own (event_store.database_uri); remove one of the two keys',
    ],
    [
      'without a provider',
      `[event_store]\ndatabase_uri = "${URI}"`,
      'event_store.provider',
      'is required with event_store.database_uri: set provider = "postgresql"',
    ],
    [
      'with provider "memory"',
      `[event_store]\nprovider = "memory"\ndatabase_uri = "${URI}"`,
      'event_store.database_uri',
      'has no effect with provider "memory" (a memory store has no database); set provider = "postgresql", or remove database_uri',
    ],
    [
      'when empty',
      '[event_store]\nprovider = "postgresql"\ndatabase_uri = ""',
      'event_store.database_uri',
      "is empty; set it to the event store's PostgreSQL URI",
    ],
    [
      "when [databases.event_store] is the user's own",
      `${DEDICATED}\n[databases.event_store]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app@db.internal/other"`,
      'databases.event_store',
      'is reserved while event_store.database_uri is set',
    ],
  ])('%s', (_case, toml, path, message) => {
    const { problems, message: text } = problemsOf(toml);
    expect(problems).toEqual([{ path, message: expect.stringContaining(message) }]);
    expect(text).not.toContain(PASSWORD);
  });

  it('a database_uri that is not a string is a type error that does not echo a secret', () => {
    const { problems, message } = problemsOf(`[event_store]\nprovider = "postgresql"\ndatabase_uri = ["${URI}"]`);
    expect(problems).toEqual([{ path: 'event_store.database_uri', message: expect.stringContaining('must be a string') }]);
    expect(message).not.toContain(PASSWORD);
  });

  it('without it, [databases.event_store] is an ordinary database event_store.database can name', () => {
    const toml = '[databases.event_store]\nprovider = "memory"\n[event_store]\ndatabase = "event_store"';
    const { config } = loadConfig({ configPath: tomlFile(toml), env: {} });
    expect(config.event_store).toEqual({ provider: 'memory', database: 'event_store' });
  });
});
