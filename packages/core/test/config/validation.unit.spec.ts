import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, outboxEnabled, type ConfigProblem, type LoadConfigOptions } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

/** A provider as an adapter package would declare it, so these tests need no adapter. */
const PULSAR = { keys: { uri: { kind: 'string' }, max_pending: { kind: 'integer', min: 1, max: 1000 } }, required: ['uri'] } as const;
const WITH_PULSAR = { brokers: ['pulsar'], settings: { databases: {}, brokers: { pulsar: PULSAR } } };

/** The problems a domain.toml produces (fails the test when it loads cleanly). */
function problemsOf(toml: string, options: Partial<LoadConfigOptions> = {}): ConfigProblem[] {
  const file = tomlFile(toml);
  try {
    loadConfig({ configPath: file, env: {}, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(file);
    expect((error as ConfigError).message).toContain(file);
    return [...(error as ConfigError).problems];
  }
  throw new Error(`expected a ConfigError for:\n${toml}`);
}

function onlyProblem(toml: string, options: Partial<LoadConfigOptions> = {}): ConfigProblem {
  const problems = problemsOf(toml, options);
  expect(problems).toHaveLength(1);
  return problems[0]!;
}

describe('config validation', () => {
  it.each([
    ['event_processing = 1', 'event_processing', 'must be one of "sync", "async" (got 1)'],
    ['command_processing = "later"', 'command_processing', 'must be one of "sync", "async" (got "later")'],
    ['identity_strategy = "serial"', 'identity_strategy', 'must be one of "uuid", "function"'],
    ['enable_outbox = "yes"', 'enable_outbox', 'must be true or false (got "yes")'],
    ['module = 3', 'module', 'must be a string (got 3)'],
    ['module = ""', 'module', 'must be a path relative to this file, e.g. module = "src/domain.ts" (got "")'],
    ['module = "  "', 'module', 'must be a path relative to this file'],
    ['module = "src/\\u0000.ts"', 'module', 'must be a path relative to this file'],
    ['server = 3', 'server', 'must be a table (got 3)'],
    ['[server]\ndefault_subscription_type = "polling"', 'server.default_subscription_type', 'must be one of "stream", "event_store" (got "polling")'],
    ['[server]\nmessages_per_tick = 0', 'server.messages_per_tick', 'must be an integer between 1 and 1000000 (got 0)'],
    ['[server]\nmessages_per_tick = 2.5', 'server.messages_per_tick', 'must be an integer between 1 and 1000000 (got 2.5)'],
    ['[server]\ntick_interval = -1', 'server.tick_interval', 'must be a number between 0 and 2147483 (got -1)'],
    ['[server.stream_subscription]\nmax_retries = -3', 'server.stream_subscription.max_retries', 'must be an integer between 0 and 1000'],
    [
      '[server.stream_subscription]\nblocking_timeout_ms = "5s"',
      'server.stream_subscription.blocking_timeout_ms',
      'must be an integer between 0 and 2147483647 (got "5s")',
    ],
    ['[server.stream_subscription]\nenable_dlq = 1', 'server.stream_subscription.enable_dlq', 'must be true or false'],
    ['[server.stream_subscription]\nbatch_size = 65', 'server.stream_subscription.batch_size', 'must be an integer between 1 and 64 (got 65)'],
    ['[server.stream_subscription]\nbatch_size = 0', 'server.stream_subscription.batch_size', 'must be an integer between 1 and 64 (got 0)'],
    ['[server.stream_subscription]\nbatch_max_wait_ms = -1', 'server.stream_subscription.batch_max_wait_ms', 'must be an integer between 0 and 60000 (got -1)'],
    ['[server.health]\nport = -1', 'server.health.port', 'must be an integer between 0 and 65535 (got -1)'],
    ['[server.health]\nport = 70000', 'server.health.port', 'must be an integer between 0 and 65535 (got 70000)'],
    [
      '[server.health]\nhost = 127',
      'server.health.host',
      'must be an IP address (127.0.0.1, 0.0.0.0, ::1) or a hostname (localhost), without scheme or port (got 127)',
    ],
    ['[outbox]\nexternal_brokers = "default"', 'outbox.external_brokers', 'must be a list of strings'],
    ['[outbox]\nmessages_per_tick = -5', 'outbox.messages_per_tick', 'must be an integer between 1 and 1000000 (got -5)'],
    ['[outbox.retry]\nmax_attempts = 0', 'outbox.retry.max_attempts', 'must be an integer between 1 and 1000'],
    ['[outbox.retry]\njitter_factor = 1.5', 'outbox.retry.jitter_factor', 'must be a number between 0 and 1 (got 1.5)'],
    ['[outbox.retry]\njitter_factor = -0.1', 'outbox.retry.jitter_factor', 'must be a number between 0 and 1'],
    ['[outbox.retry]\nbackoff_multiplier = 0.5', 'outbox.retry.backoff_multiplier', 'must be a number between 1 and 100 (got 0.5)'],
    [
      '[outbox.retry]\nbase_delay_seconds = 10\nmax_backoff_seconds = 5',
      'outbox.retry.max_backoff_seconds',
      'must be at least outbox.retry.base_delay_seconds (10), got 5',
    ],
    ['[outbox.cleanup]\npublished_retention_hours = -1', 'outbox.cleanup.published_retention_hours', 'must be a number between 0 and 876000'],
    ['[outbox.cleanup]\ncleanup_interval_ticks = 0', 'outbox.cleanup.cleanup_interval_ticks', 'must be an integer between 1 and 1000000'],
    ['[databases.default]\npool_size = 0', 'databases.default.pool_size', 'must be an integer between 1 and 10000 (got 0)'],
    ['[databases.default]\nmanaged = "no"', 'databases.default.managed', 'must be true or false'],
    ['databases = []', 'databases', 'must be a table'],
    ['[databases]\nreporting = "memory"', 'databases.reporting', 'must be a table (got "memory")'],
    ['[event_store]\ndatabase = "ledger"', 'event_store.database', 'database "ledger" is not configured; name one of [databases.*] (default)'],
    [
      '[event_store]\nprovider = "postgresql"',
      'event_store.provider',
      'is "postgresql", but [databases.default] (event_store.database) uses provider "memory"',
    ],
    ['[event_store]\nprovider = "redis"', 'event_store.provider', 'must be one of'],
    [
      '[event_store]\ndatabase_uri = "postgresql://localhost/events"',
      'event_store.provider',
      'is required with event_store.database_uri: set provider = "postgresql"',
    ],
    [
      '[event_store]\nprovider = "postgresql"\ndatabase_uri = "mysql://app:hunter2@db/events"',
      'event_store.database_uri',
      'must be a URI starting with postgresql:// or postgres://, not mysql://, e.g. postgresql://app@localhost:5432/events (got "mysql://app:***@db/events")',
    ],
    [
      '[event_store]\nprovider = "postgresql"\ndatabase_uri = "postgresql://db:70000/events"',
      'event_store.database_uri',
      'has a port that is not a whole number from 1 to 65535',
    ],
    ['snapshot_threshold = 0', 'snapshot_threshold', 'must be an integer between 1 and 1000000 (got 0)'],
    ['snapshot_threshold = 1000001', 'snapshot_threshold', 'must be an integer between 1 and 1000000'],
    ['[server]\ndefault_subscription_type = "event_store"', 'server.default_subscription_type', 'is "event_store", but enable_outbox is true (its default)'],
    ['[server.event_store_subscription]\nlease_seconds = 0.5', 'server.event_store_subscription.lease_seconds', 'between 1 and 3600'],
    ['[server.event_store_subscription]\npoll_interval_ms = 0', 'server.event_store_subscription.poll_interval_ms', 'between 1 and 60000'],
  ])('%s → %s', (toml, path, message) => {
    const problem = onlyProblem(toml);
    expect(problem.path).toBe(path);
    expect(problem.message).toContain(message);
  });

  it('rejects an unknown database or broker provider, listing the known ones and suggesting the closest', () => {
    const problems = problemsOf('[databases.default]\nprovider = "postgres"\n[brokers.default]\nprovider = "rabbit"');
    // Test files of this project run in shared workers, and some register providers of their own
    // (adapters register globally, for the process): they may be listed between the built-ins.
    expect(problems).toEqual([
      {
        path: 'databases.default.provider',
        message: expect.stringMatching(/unknown provider "postgres"; known: memory, (.+, )?postgresql .*Did you mean "postgresql"\?/),
      },
      { path: 'brokers.default.provider', message: expect.stringMatching(/unknown provider "rabbit"; known: inline, (.+, )?redis/) },
    ]);
  });

  it('accepts providers registered beyond the built-ins, with the keys they declare', () => {
    const file = tomlFile('[brokers.default]\nprovider = "pulsar"\nuri = "pulsar://localhost"');
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/unknown provider "pulsar"/);
    const loaded = loadConfig({ configPath: file, env: {}, providers: { brokers: ['pulsar'], settings: { databases: {}, brokers: { pulsar: PULSAR } } } });
    expect(loaded.config.brokers.default).toEqual({ provider: 'pulsar', uri: 'pulsar://localhost' });
    expect(loaded.warnings).toEqual([]);
  });

  it('passes the keys of a provider that declared none on unchecked, with a warning', () => {
    const file = tomlFile('[brokers.default]\nprovider = "pulsar"\nuri = "pulsar://localhost"');
    const loaded = loadConfig({ configPath: file, env: {}, providers: { brokers: ['pulsar'] } });
    expect(loaded.config.brokers.default).toEqual({ provider: 'pulsar', uri: 'pulsar://localhost' });
    expect(loaded.warnings).toEqual([
      'domain.toml: brokers.default: provider "pulsar" has not declared its keys (is its adapter package installed?), so `uri` is passed on unchecked',
    ]);
  });

  it('requires a provider in every named database and broker table', () => {
    const problem = onlyProblem('[brokers.events]\nuri = "redis://localhost"');
    expect(problem).toEqual({ path: 'brokers.events.provider', message: expect.stringContaining('is required') });
  });

  it("a provider's required key must be set", () => {
    expect(onlyProblem('[brokers.default]\nprovider = "pulsar"', { providers: WITH_PULSAR })).toEqual({
      path: 'brokers.default.uri',
      message: 'is required for provider "pulsar"',
    });
  });

  it('a common key the provider does not read is an error (database_uri with memory)', () => {
    expect(onlyProblem('[databases.default]\nprovider = "memory"\ndatabase_uri = "postgresql://h/db"')).toEqual({
      path: 'databases.default.database_uri',
      message: 'has no effect with provider "memory"; remove it, or set the provider that uses it',
    });
  });

  it('outbox.broker must name a defined broker', () => {
    const problem = onlyProblem('[outbox]\nbroker = "events"');
    expect(problem.path).toBe('outbox.broker');
    expect(problem.message).toContain('names broker "events", which is not defined; add a [brokers.events] table (defined: default)');
  });

  it('every external broker must be defined', () => {
    const problem = onlyProblem('[brokers.audit]\nprovider = "inline"\n[outbox]\nexternal_brokers = ["audit", "partners"]');
    expect(problem.path).toBe('outbox.external_brokers[1]');
    expect(problem.message).toContain('broker "partners"');
  });

  it('warns when an external broker is the outbox broker itself', () => {
    const loaded = loadConfig({ configPath: tomlFile('[outbox]\nexternal_brokers = ["default"]'), env: {} });
    expect(loaded.warnings).toEqual([expect.stringContaining('outbox.external_brokers[0]: "default" is already outbox.broker')]);
  });

  it('lists every problem of a file at once', () => {
    const problems = problemsOf('event_processing = "x"\n[server.health]\nport = -1\n[outbox]\nbroker = "nope"');
    expect(problems.map((p) => p.path)).toEqual(['event_processing', 'server.health.port', 'outbox.broker']);
  });

  it('reports overrides problems without a file', () => {
    try {
      loadConfig({ searchFrom: '/nonexistent-protean-folder', env: {}, overrides: { server: { messages_per_tick: 0 } } });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).file).toBeNull();
      expect((error as ConfigError).message).toContain('no domain.toml found');
    }
  });

  it('says when overrides were merged over the file', () => {
    const file = tomlFile('event_processing = "sync"');
    expect(() => loadConfig({ configPath: file, env: {}, overrides: { event_processing: 'later' } })).toThrow(`${file} (with programmatic overrides)`);
  });

  it('checks the keys a provider declares, coercing whole placeholders', () => {
    const toml = '[brokers.default]\nprovider = "pulsar"\nuri = "pulsar://localhost"\nmax_pending = "${PENDING}"\nclaim_idle_ms = 30000\n';
    const { config, warnings } = loadConfig({ configPath: tomlFile(toml), env: { PENDING: '64' }, providers: WITH_PULSAR });
    expect(config.brokers.default).toEqual({ provider: 'pulsar', uri: 'pulsar://localhost', max_pending: 64, claim_idle_ms: 30000 });
    expect(warnings).toEqual([]);
    expect(onlyProblem('[brokers.default]\nprovider = "pulsar"\nuri = "pulsar://h"\nmax_pending = 0', { providers: WITH_PULSAR })).toEqual({
      path: 'brokers.default.max_pending',
      message: 'must be an integer between 1 and 1000 (got 0)',
    });
  });
});

describe('connection URIs', () => {
  // Declared as the postgresql and redis adapters declare theirs, so these tests need no adapter.
  const URI_PROVIDERS = {
    databases: ['sql'],
    brokers: ['cache'],
    settings: {
      databases: { sql: { keys: { database_uri: { kind: 'uri', schemes: ['postgresql', 'postgres'], example: 'postgresql://app@localhost:5432/shop' } } } },
      brokers: { cache: { keys: { uri: { kind: 'uri', schemes: ['redis', 'rediss'], example: 'redis://localhost:6379/0' } } } },
    },
  } as const;
  const database = (uri: string) => `[databases.default]\nprovider = "sql"\ndatabase_uri = "${uri}"`;
  const broker = (uri: string) => `[brokers.default]\nprovider = "cache"\nuri = "${uri}"`;

  it.each([
    [database('mysql://app:hunter2@db:3306/shop'), 'databases.default.database_uri', 'must be a URI starting with postgresql:// or postgres://, not mysql://'],
    [database('postgresql://app:hunter2@db:0/shop'), 'databases.default.database_uri', 'has a port that is not a whole number from 1 to 65535'],
    [database('postgresql://db:70000/shop'), 'databases.default.database_uri', '(got "postgresql://db:70000/shop")'],
    [database('postgresql://db:fivefour/shop'), 'databases.default.database_uri', 'has a port that is not a whole number from 1 to 65535'],
    // A "/" left in the password ends the authority early: what is left of it is never quoted.
    [database('postgresql://app:hun/ter2@db/shop'), 'databases.default.database_uri', 'has a port that is not a whole number'],
    [broker('not a uri'), 'brokers.default.uri', 'must be a URI starting with redis:// or rediss://, e.g. redis://localhost:6379/0 (got "not a uri")'],
    [broker('amqp://guest:hunter2@localhost:5672'), 'brokers.default.uri', 'must be a URI starting with redis:// or rediss://, not amqp://'],
    [broker('redis://my cache:6379'), 'brokers.default.uri', 'has a host that is no hostname or IP address'],
  ])('%s → %s', (toml, path, message) => {
    const problem = onlyProblem(toml, { providers: URI_PROVIDERS });
    expect(problem.path).toBe(path);
    expect(problem.message).toContain(message);
    expect(problem.message).not.toMatch(/hunter2|hun\b/);
  });

  it.each([
    database('postgresql://app:p@ss word@[::1]:5432/shop'),
    database('postgres:///shop?host=/var/run/postgresql'),
    database('postgresql://%2Fvar%2Frun%2Fpostgresql/shop'),
    broker('rediss://:pw@cache.internal:6380/1'),
    broker('redis://my_cache'),
  ])('accepts %s', (toml) => {
    expect(() => loadConfig({ configPath: tomlFile(toml), env: {}, providers: URI_PROVIDERS })).not.toThrow();
  });
});

describe('outboxEnabled', () => {
  it('follows enable_outbox, on by default', () => {
    const load = (toml: string) => loadConfig({ configPath: tomlFile(toml), env: {} }).config;
    expect(outboxEnabled(load(''))).toBe(true);
    expect(outboxEnabled(load('enable_outbox = false'))).toBe(false);
    expect(outboxEnabled(load('enable_outbox = true'))).toBe(true);
  });
});
