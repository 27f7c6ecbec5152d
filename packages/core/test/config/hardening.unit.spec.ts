/**
 * Regressions of issue 10 (what a hostile tester found in the configuration), one block per
 * class of defect: a misspelt provider running on memory, secrets echoed in problems, inherited
 * property names, unbounded numbers, settings nothing reads, a health host that is no address.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureLogging, ConfigError, Domain, loadConfig, type ConfigProblem, type LogRecord } from '../../src/index.js';
import { tempProject, tomlFile } from './config-fixture.js';

function configErrorOf(toml: string, env: Record<string, string> = {}): { error: ConfigError; file: string } {
  const file = tomlFile(toml);
  try {
    loadConfig({ configPath: file, env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(file);
    return { error: error as ConfigError, file };
  }
  throw new Error(`expected a ConfigError for:\n${toml}`);
}

const problemAt = (error: ConfigError, path: string): ConfigProblem | undefined => error.problems.find((p) => p.path === path);

describe('a connection setting without a provider (1)', () => {
  it('[databases.default] with `provide` and a database_uri is an error naming provider and the file, not a memory database', () => {
    const { error, file } = configErrorOf('[databases.default]\nprovide = "postgresql"\ndatabase_uri = "postgresql://app@db/shop"');
    expect(problemAt(error, 'databases.default.provider')?.message).toMatch(/is missing, but \[databases\.default\] sets database_uri/);
    expect(error.message).toContain(file);
  });

  it('[brokers.default] with `provder` and a uri is an error too', () => {
    const { error } = configErrorOf('[brokers.default]\nprovder = "redis"\nuri = "redis://cache:6379"');
    expect(problemAt(error, 'brokers.default.provider')?.message).toMatch(/is missing, but \[brokers\.default\] sets uri/);
  });

  it('the misspelt key itself is warned about with its suggestion when it is the only mistake', () => {
    const loaded = loadConfig({ configPath: tomlFile('[databases.default]\nprovide = "memory"\npool_siz = 3'), env: {} });
    expect(loaded.warnings).toEqual([
      'domain.toml: unknown key `databases.default.provide` for provider "memory" is ignored; did you mean `provider`?',
      'domain.toml: unknown key `databases.default.pool_siz` for provider "memory" is ignored; did you mean `pool_size`?',
    ]);
  });

  it('domain.init logs the same warnings at start (what the server runs)', async () => {
    const logs: LogRecord[] = [];
    const restore = configureLogging({ sink: (_line, record) => logs.push(record), level: 'debug' });
    const root = tempProject({ 'domain.toml': '[server]\nmessages_per_tik = 5\n[databases.default]\nprovider = "memory"\nmanage = false\n' });
    const domain = new Domain('Warned', { root });
    try {
      await domain.init();
      const warned = logs.filter((r) => r.level === 'warn').map((r) => r.msg);
      expect(warned).toEqual(
        expect.arrayContaining([
          'domain.toml: unknown key `server.messages_per_tik` is ignored; did you mean `messages_per_tick`?',
          'domain.toml: unknown key `databases.default.manage` for provider "memory" is ignored; did you mean `managed`?',
        ]),
      );
    } finally {
      await domain.close();
      configureLogging(restore);
    }
  });
});

describe('secrets in problems (2)', () => {
  it.each([
    ['a URI in a list where a string is expected', '[outbox]\nbroker = ["redis://:pw-SECRET1@cache"]', 'outbox.broker'],
    ['a key/value connection string in a list', '[outbox]\nbroker = ["host=db password=SECRET1 user=app"]', 'outbox.broker'],
    ['a quoted key/value password', `[outbox]\nbroker = ["host=db password='SEC RET1' user=app"]`, 'outbox.broker'],
    ['a URI typed into a numeric key', '[server]\nmessages_per_tick = "postgresql://app:SECRET1@db/shop"', 'server.messages_per_tick'],
    ['a URI in a boolean key', 'enable_outbox = "redis://u:SECRET1@h"', 'enable_outbox'],
    ['a table with a password in a list', '[outbox]\nexternal_brokers = [{ password = "SECRET1" }]', 'outbox.external_brokers'],
    ['a secret-named key holding a number', '[outbox]\nexternal_brokers = [{ api_key = 12345678 }]', 'outbox.external_brokers'],
  ])('%s is masked', (_label, toml, path) => {
    const { error } = configErrorOf(toml);
    expect(problemAt(error, path)).toBeDefined();
    expect(error.message).not.toMatch(/SECRET1|SEC RET1|12345678/);
    expect(JSON.stringify(error.problems)).not.toMatch(/SECRET1|SEC RET1|12345678/);
  });

  it('a URI pasted as a key name is masked in the unknown-key warning', () => {
    const loaded = loadConfig({ configPath: tomlFile('[server]\n"redis://:SECRET1@cache" = 1'), env: {} });
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings.join()).not.toContain('SECRET1');
  });

  it('a TOML syntax error does not carry the offending line (which may hold a secret)', () => {
    const { error } = configErrorOf('[databases.default]\ndatabase_uri = "postgresql://a:SECRET1@h/db" x\n');
    expect(error.cause).toBeUndefined();
    expect(`${error.message}${error.stack}`).not.toContain('SECRET1');
  });
});

describe('keys and environments named like inherited properties (3)', () => {
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('PROTEAN_ENV=%s is an environment without a table, not a crash', (name) => {
    const loaded = loadConfig({ configPath: tomlFile('[server]\nmessages_per_tick = 5'), env: { PROTEAN_ENV: name } });
    expect(loaded.config.server.messages_per_tick).toBe(5);
    expect(loaded.warnings).toEqual([`domain.toml: PROTEAN_ENV=${name} but there is no [${name}] table; using the base configuration`]);
  });

  it('an environment table named toString is used when PROTEAN_ENV names it', () => {
    const loaded = loadConfig({ configPath: tomlFile('[toString.server]\nmessages_per_tick = 7'), env: { PROTEAN_ENV: 'toString' } });
    expect(loaded.config.server.messages_per_tick).toBe(7);
  });

  it.each(['__proto__', 'constructor', 'toString'])('a key named %s is warned about at every level, never dropped silently', (key) => {
    const toml = `"${key}" = 1\n[server]\n"${key}" = 1\n[databases.default]\nprovider = "memory"\n"${key}" = 1`;
    const loaded = loadConfig({ configPath: tomlFile(toml), env: {} });
    expect(loaded.warnings).toHaveLength(3);
    for (const path of [key, `server.${key}`, `databases.default.${key}`]) {
      expect(loaded.warnings.some((w) => w.includes(`unknown key \`${path}\``))).toBe(true);
    }
    expect(Object.getPrototypeOf(loaded.config)).toBe(Object.prototype);
  });

  it('a database named constructor is a database, and an undefined name never finds an inherited property', () => {
    const loaded = loadConfig({ configPath: tomlFile('[databases.constructor]\nprovider = "memory"'), env: {} });
    expect(Object.keys(loaded.config.databases).sort()).toEqual(['constructor', 'default']);
    expect(loaded.config.databases.toString).toBeUndefined();
  });

  it('${toString} is an unset variable, not Object.prototype.toString', () => {
    const { error } = configErrorOf('module = "${toString}"');
    expect(error.problems[0]).toMatchObject({ path: 'module', message: expect.stringContaining('environment variable toString is not set') });
  });
});

describe('numbers have bounds (4)', () => {
  it.each([
    ['[server]\ntick_interval = 1e308', 'server.tick_interval', 'between 0 and 2147483'],
    ['[server]\nmessages_per_tick = 1e308', 'server.messages_per_tick', 'between 1 and 1000000'],
    ['[server.stream_subscription]\nblocking_timeout_ms = 2147483648', 'server.stream_subscription.blocking_timeout_ms', 'between 0 and 2147483647'],
    ['[outbox.retry]\nmax_backoff_seconds = inf', 'outbox.retry.max_backoff_seconds', 'between 0 and 2147483 (got "Infinity")'],
    ['[outbox]\ntick_interval = nan', 'outbox.tick_interval', '(got "NaN")'],
    ['[server]\nstartup_timeout_seconds = -1', 'server.startup_timeout_seconds', 'between 0 and 2147483'],
    ['[inbox]\nretention_hours = 1e12', 'inbox.retention_hours', 'between 0 and 876000'],
    ['[databases.default]\npool_size = 1e308', 'databases.default.pool_size', 'between 1 and 10000'],
    ['[brokers.default]\nprovider = "inline"\nclaim_idle_ms = 1e308', 'brokers.default.claim_idle_ms', 'between 0 and 2147483647'],
  ])('%s is refused', (toml, path, message) => {
    const { error } = configErrorOf(toml);
    expect(problemAt(error, path)?.message).toContain(message);
  });

  it('the largest timer a duration can ask for is accepted', () => {
    const { config } = loadConfig({ configPath: tomlFile('[server]\ntick_interval = 2147483'), env: {} });
    expect(config.server.tick_interval * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
  });
});

describe('settings nothing reads are refused (5)', () => {
  it('default_subscription_type = "event_store" with the outbox on is refused, saying to turn the outbox off', () => {
    const { error } = configErrorOf('[server]\ndefault_subscription_type = "event_store"');
    expect(problemAt(error, 'server.default_subscription_type')?.message).toContain('Set enable_outbox = false');
    const explicit = configErrorOf('enable_outbox = true\n[server]\ndefault_subscription_type = "event_store"');
    expect(problemAt(explicit.error, 'server.default_subscription_type')?.message).toContain('enable_outbox is true');
  });

  it('default_subscription_type = "event_store" with enable_outbox = false is accepted, with the lease defaults', () => {
    const { config } = loadConfig({ configPath: tomlFile('enable_outbox = false\n[server]\ndefault_subscription_type = "event_store"'), env: {} });
    expect(config.server.default_subscription_type).toBe('event_store');
    expect(config.server.event_store_subscription).toEqual({ lease_seconds: 10, poll_interval_ms: 100 });
  });
});

describe('[event_store] and snapshot_threshold', () => {
  it("default to the default database's own store and 10", () => {
    const { config } = loadConfig({ configPath: tomlFile(''), env: {} });
    expect(config.event_store).toEqual({ provider: 'memory', database: 'default' });
    expect(config.snapshot_threshold).toBe(10);
  });

  it('the provider follows the named database when left out', () => {
    const toml =
      'snapshot_threshold = 5\n[databases.ledger]\nprovider = "postgresql"\ndatabase_uri = "postgresql://127.0.0.1/ledger"\n[event_store]\ndatabase = "ledger"';
    const { config } = loadConfig({ configPath: tomlFile(toml), env: {} });
    expect(config.event_store).toEqual({ provider: 'postgresql', database: 'ledger' });
    expect(config.snapshot_threshold).toBe(5);
  });
});

describe('server.health.host is an address (6)', () => {
  it.each(['', 'http://0.0.0.0', '0.0.0.0:8080', 'not a host', '[::1]', '-bad-'])('%j is refused naming server.health.host', (host) => {
    const { error } = configErrorOf(`[server.health]\nhost = ${JSON.stringify(host)}`);
    expect(problemAt(error, 'server.health.host')?.message).toContain('must be an IP address');
  });

  it.each(['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'health.internal'])('%s is accepted', (host) => {
    expect(loadConfig({ configPath: tomlFile(`[server.health]\nhost = "${host}"`), env: {} }).config.server.health.host).toBe(host);
  });
});

describe('server.health metrics endpoint', () => {
  it('is on at /metrics by default, and can be moved or turned off', () => {
    expect(loadConfig({ configPath: tomlFile('module = "x.ts"'), env: {} }).config.server.health).toMatchObject({ metrics: true, metrics_path: '/metrics' });
    const moved = loadConfig({ configPath: tomlFile('[server.health]\nmetrics = false\nmetrics_path = "/internal/prom"'), env: {} }).config.server.health;
    expect(moved).toMatchObject({ metrics: false, metrics_path: '/internal/prom' });
  });

  it.each(['metrics', '', '/metrics?x=1', '/with space'])('metrics_path %j is refused as no URL path', (path) => {
    const { error } = configErrorOf(`[server.health]\nmetrics_path = ${JSON.stringify(path)}`);
    expect(problemAt(error, 'server.health.metrics_path')?.message).toContain('must be a URL path starting with "/"');
  });

  it("metrics_path may not take a health endpoint's path", () => {
    const { error } = configErrorOf('[server.health]\nmetrics_path = "/readyz"');
    expect(problemAt(error, 'server.health.metrics_path')?.message).toContain('"/readyz" is a health endpoint of its own');
  });

  it('metrics must be true or false', () => {
    const { error } = configErrorOf('[server.health]\nmetrics = "yes"');
    expect(problemAt(error, 'server.health.metrics')?.message).toContain('must be true or false');
  });
});

describe('logging config', () => {
  let restore: ReturnType<typeof configureLogging>;
  beforeEach(() => {
    restore = configureLogging({ sink: () => undefined });
  });
  afterEach(() => configureLogging(restore));

  it('a key/value connection string is masked in log lines', async () => {
    const lines: string[] = [];
    configureLogging({ sink: (line) => lines.push(line) });
    const { getLogger } = await import('../../src/index.js');
    getLogger('test').warn("connecting to host=db password='SECRET1 x' user=app", { dsn: 'host=db password=SECRET2' });
    expect(lines.join('\n')).not.toMatch(/SECRET1|SECRET2/);
  });
});
