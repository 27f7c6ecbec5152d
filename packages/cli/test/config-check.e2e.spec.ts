import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProject } from './cli-fixture.js';
import { runCli } from './run-cli.js';

const VALID = `
[databases.default]
provider = "postgresql"
database_uri = "postgresql://shop:\${DB_PASSWORD}@127.0.0.1:5432/shop"

[brokers.default]
provider = "redis"
uri = "redis://:hunter2@127.0.0.1:6379/0"

[server]
messages_per_tick = 25
`;

describe('protean-ts config check', () => {
  it('prints the resolved configuration as TOML with secrets masked, exit 0', async () => {
    const cwd = tempProject({ 'domain.toml': VALID }, { linkCore: false });
    const { code, stdout, stderr } = await runCli(['config', 'check'], { cwd, env: { DB_PASSWORD: 's3cret' } });
    expect(stderr).toContain(`Configuration: ${path.join(cwd, 'domain.toml')}`);
    expect(code).toBe(0);
    expect(stdout).toContain('[databases.default]');
    expect(stdout).toContain('database_uri = "postgresql://shop:***@127.0.0.1:5432/shop"');
    expect(stdout).toContain('uri = "redis://:***@127.0.0.1:6379/0"');
    expect(stdout).toContain('messages_per_tick = 25');
    expect(stdout).toContain('[outbox.retry]'); // defaults are filled in
    expect(stdout + stderr).not.toContain('s3cret');
    expect(stdout + stderr).not.toContain('hunter2');
  });

  it('--json prints JSON', async () => {
    const cwd = tempProject({ 'domain.toml': VALID }, { linkCore: false });
    const { code, stdout } = await runCli(['config', 'check', '--json'], { cwd, env: { DB_PASSWORD: 's3cret' } });
    expect(code).toBe(0);
    const config = JSON.parse(stdout);
    expect(config.databases.default.database_uri).toBe('postgresql://shop:***@127.0.0.1:5432/shop');
    expect(config.server.messages_per_tick).toBe(25);
    expect(config.outbox.retry.max_attempts).toBe(5);
  });

  it('with no domain.toml prints the defaults', async () => {
    const cwd = tempProject({}, { linkCore: false });
    const { code, stdout, stderr } = await runCli(['config', 'check', '--json'], { cwd });
    expect(code).toBe(0);
    expect(stderr).toContain('no .domain.toml or domain.toml found');
    expect(JSON.parse(stdout).databases.default).toEqual({ provider: 'memory', managed: true, pool_size: 10 });
  });

  it('exits 1 listing every problem, with the file, and no stack trace', async () => {
    const cwd = tempProject(
      {
        'domain.toml': '[server.health]\nport = 70000\n[outbox]\nbroker = "events"\n[databases.default]\nprovider = "postgres"\n',
      },
      { linkCore: false },
    );
    const { code, stdout, stderr } = await runCli(['config', 'check'], { cwd });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`protean-ts: error: Invalid configuration in ${path.join(cwd, 'domain.toml')} (3 problems)`);
    expect(stderr).toContain('server.health.port: must be an integer between 0 and 65535 (got 70000)');
    expect(stderr).toContain('outbox.broker: names broker "events"');
    expect(stderr).toContain('databases.default.provider: unknown provider "postgres"');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('--verbose adds the stack trace', async () => {
    const cwd = tempProject({ 'domain.toml': 'event_processing = "later"' }, { linkCore: false });
    const { code, stderr } = await runCli(['--verbose', 'config', 'check'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toMatch(/\n\s+at /);
  });

  it('names the missing variable and the key', async () => {
    const cwd = tempProject({ 'domain.toml': VALID }, { linkCore: false });
    const { code, stderr } = await runCli(['config', 'check'], { cwd, env: { DB_PASSWORD: undefined } });
    expect(code).toBe(1);
    expect(stderr).toContain('databases.default.database_uri: environment variable DB_PASSWORD is not set');
  });

  it('reports a TOML syntax error with its line', async () => {
    const cwd = tempProject({ 'domain.toml': 'identity_strategy = "uuid"\n[server\n' }, { linkCore: false });
    const { code, stderr } = await runCli(['config', 'check'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(`${path.join(cwd, 'domain.toml')}:2:`);
  });

  it('prints warnings on stderr and still exits 0', async () => {
    const cwd = tempProject({ 'domain.toml': '[server]\nmessages_per_tik = 5\n' }, { linkCore: false });
    const { code, stdout, stderr } = await runCli(['config', 'check'], { cwd });
    expect(code).toBe(0);
    expect(stderr).toContain('warning: domain.toml: unknown key `server.messages_per_tik` is ignored; did you mean `messages_per_tick`?');
    expect(stdout).not.toContain('messages_per_tik =');
  });

  it('--strict turns warnings into exit 1', async () => {
    const cwd = tempProject({ 'domain.toml': '[server]\nmessages_per_tik = 5\n' }, { linkCore: false });
    const { code, stderr } = await runCli(['config', 'check', '--strict'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('warning: domain.toml: unknown key `server.messages_per_tik`');
    expect(stderr).toContain('protean-ts: error: --strict: the configuration has 1 warning(s)');
    const clean = tempProject({ 'domain.toml': '[server]\nmessages_per_tick = 5\n' }, { linkCore: false });
    expect((await runCli(['config', 'check', '--strict'], { cwd: clean })).code).toBe(0);
  });

  it('--config reads that file instead of discovering one', async () => {
    const cwd = tempProject({ 'domain.toml': 'event_processing = "sync"', 'deploy/prod.toml': 'event_processing = "async"' }, { linkCore: false });
    const { code, stdout } = await runCli(['--config', 'deploy/prod.toml', 'config', 'check', '--json'], { cwd });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).event_processing).toBe('async');
  });

  it('--config naming a missing file fails clearly', async () => {
    const cwd = tempProject({}, { linkCore: false });
    const { code, stderr } = await runCli(['config', 'check', '--config', 'nope.toml'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(`config file ${path.join(cwd, 'nope.toml')} does not exist`);
  });

  it('with --domain, discovers the file from the domain module’s folder', async () => {
    const project = tempProject({ 'app/domain.toml': 'command_processing = "async"', 'app/src/domain.ts': '' }, { linkCore: false });
    const elsewhere = tempProject({ 'domain.toml': 'command_processing = "sync"' }, { linkCore: false });
    const { code, stdout } = await runCli(['config', 'check', '--json', '--domain', path.join(project, 'app/src/domain.ts')], { cwd: elsewhere });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).command_processing).toBe('async');
  });

  it('PROTEAN_ENV selects the environment table', async () => {
    const cwd = tempProject({ 'domain.toml': '[server]\nmessages_per_tick = 5\n[staging.server]\nmessages_per_tick = 50\n' }, { linkCore: false });
    const { code, stdout, stderr } = await runCli(['config', 'check', '--json'], { cwd, env: { PROTEAN_ENV: 'staging' } });
    expect(code).toBe(0);
    expect(stderr).toContain('(PROTEAN_ENV=staging)');
    expect(JSON.parse(stdout).server.messages_per_tick).toBe(50);
  });
});

describe('protean-ts config check refuses what would silently run wrong (issue 10)', () => {
  it('a misspelt provider next to a database_uri is an error naming the key and file, not a memory database', async () => {
    const cwd = tempProject(
      { 'domain.toml': '[databases.default]\nprovide = "postgresql"\ndatabase_uri = "postgresql://app:hunter2@db/shop"\n' },
      { linkCore: false },
    );
    const { code, stdout, stderr } = await runCli(['config', 'check', '--strict'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(path.join(cwd, 'domain.toml'));
    expect(stderr).toContain('databases.default.provider: is missing, but [databases.default] sets database_uri');
    expect(stdout + stderr).not.toContain('hunter2');
  });

  it('an unknown key inside an adapter table warns with a suggestion and fails --strict', async () => {
    const cwd = tempProject(
      { 'domain.toml': '[brokers.default]\nprovider = "redis"\nuri = "redis://:hunter2@127.0.0.1:6379/0"\nmaxln = 5\n' },
      { linkCore: false },
    );
    const lenient = await runCli(['config', 'check'], { cwd });
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain('warning: domain.toml: unknown key `brokers.default.maxln` for provider "redis" is ignored; did you mean `maxlen`?');
    const strict = await runCli(['config', 'check', '--strict'], { cwd });
    expect(strict.code).toBe(1);
    expect(strict.stdout + strict.stderr + lenient.stdout + lenient.stderr).not.toContain('hunter2');
  });

  it.each([
    ['a URI in a list', 'uri = ["redis://:hunter2@cache:6379"]'],
    ['a key/value string in a numeric key', 'uri = "redis://cache:6379"\nmaxlen = "host=db password=hunter2"'],
  ])('%s is refused with the secret masked', async (_label, line) => {
    const cwd = tempProject({ 'domain.toml': `[brokers.default]\nprovider = "redis"\n${line}\n` }, { linkCore: false });
    const { code, stdout, stderr } = await runCli(['config', 'check'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('brokers.default.');
    expect(stdout + stderr).not.toContain('hunter2');
  });

  it('an empty module, a URI of another scheme or with a bad port or host: exit 1 naming each key and the expected form (issue 22)', async () => {
    const cwd = tempProject(
      {
        'domain.toml':
          'module = ""\n' +
          '[databases.default]\nprovider = "postgresql"\ndatabase_uri = "mysql://app:hunter2@db:3306/shop"\n' +
          '[databases.reporting]\nprovider = "postgresql"\ndatabase_uri = "postgresql://app:hunter2@db:70000/reporting"\n' +
          '[brokers.default]\nprovider = "redis"\nuri = "amqp://guest:hunter2@127.0.0.1:5672"\n' +
          '[brokers.events]\nprovider = "nats"\nuri = "not a uri"\n' +
          '[brokers.jobs]\nprovider = "rabbitmq"\nuri = "amqp://my host:5672"\n',
      },
      { linkCore: false },
    );
    const { code, stdout, stderr } = await runCli(['config', 'check'], { cwd });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('(6 problems)');
    expect(stderr).toContain('module: must be a path relative to this file, e.g. module = "src/domain.ts" (got "")');
    expect(stderr).toContain('databases.default.database_uri: must be a URI starting with postgresql:// or postgres://, not mysql://');
    expect(stderr).toContain(
      'databases.reporting.database_uri: has a port that is not a whole number from 1 to 65535, e.g. postgresql://app@localhost:5432/shop (got "postgresql://app:***@db:70000/reporting")',
    );
    expect(stderr).toContain('brokers.default.uri: must be a URI starting with redis:// or rediss://, not amqp://, e.g. redis://localhost:6379/0');
    expect(stderr).toContain('brokers.events.uri: must be a URI starting with nats:// or tls://, e.g. nats://localhost:4222 (got "not a uri")');
    expect(stderr).toContain('brokers.jobs.uri: has a host that is no hostname or IP address');
    expect(stderr).not.toContain('hunter2');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('PROTEAN_ENV=toString is a missing environment, not a crash', async () => {
    const cwd = tempProject({ 'domain.toml': '[server]\nmessages_per_tick = 5\n' }, { linkCore: false });
    const { code, stderr } = await runCli(['config', 'check'], { cwd, env: { PROTEAN_ENV: 'toString' } });
    expect(code).toBe(0);
    expect(stderr).toContain('PROTEAN_ENV=toString but there is no [toString] table');
  });
});
