/**
 * The redis adapter declares its `[brokers.<name>]` keys to the config loader (issue 10): typos
 * are warned about with a suggestion by `config check` and at start, values are checked with
 * their bounds naming the file, and nothing echoed shows the password.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigWithAdapters } from '@protean-ts/core';
import '../src/index.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-redis-keys-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

function toml(text: string): string {
  const file = path.join(folder, `${Math.random().toString(36).slice(2)}.toml`);
  fs.writeFileSync(file, text);
  return file;
}

const REDIS = '[brokers.default]\nprovider = "redis"\nuri = "redis://:hunter2@127.0.0.1:6379/0"\n';

describe('redis keys declared to the config loader', () => {
  it('warns about a misspelt key with its suggestion, and drops it', async () => {
    const file = toml(`${REDIS}maxln = 5\nstream_prefx = "a:"`);
    const loaded = await loadConfigWithAdapters({ configPath: file, env: {} });
    expect(loaded.warnings).toEqual([
      `${path.basename(file)}: unknown key \`brokers.default.maxln\` for provider "redis" is ignored; did you mean \`maxlen\`?`,
      `${path.basename(file)}: unknown key \`brokers.default.stream_prefx\` for provider "redis" is ignored; did you mean \`stream_prefix\`?`,
    ]);
    expect(loaded.config.brokers.default).toEqual({ provider: 'redis', uri: 'redis://:hunter2@127.0.0.1:6379/0' });
  });

  it.each([
    ['connect_timeout_ms = 1e308', 'brokers.default.connect_timeout_ms', 'between 1 and 2147483647'],
    ['maxlen = -1', 'brokers.default.maxlen', 'between 0 and 1000000000'],
    ['stream_prefix = ["redis://:hunter2@h"]', 'brokers.default.stream_prefix', 'must be a string'],
  ])('%s is a ConfigError naming the key and file, secret masked', async (line, key, message) => {
    const file = toml(`${REDIS}${line}`);
    const error = await loadConfigWithAdapters({ configPath: file, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ path: key, message: expect.stringContaining(message) }]);
    expect((error as ConfigError).message).toContain(file);
    expect((error as ConfigError).message).not.toContain('hunter2');
  });

  it('CloudEvents keys that only apply with message_format = "cloudevents", and an empty cloudevents_source, are refused when the configuration loads', async () => {
    const file = toml(
      `${REDIS}cloudevents_mode = "binary"\n` +
        '[brokers.partners]\nprovider = "redis"\nuri = "redis://127.0.0.1:6379"\nmessage_format = "cloudevents"\ncloudevents_source = ""\n',
    );
    const error = await loadConfigWithAdapters({ configPath: file, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { path: 'brokers.default.cloudevents_mode', message: 'only applies with message_format = "cloudevents"; set that too, or remove this key' },
      { path: 'brokers.partners.cloudevents_source', message: expect.stringContaining('must be a non-empty URI-reference') },
    ]);
  });

  it('a uri given as a list is refused without echoing the password', async () => {
    const file = toml('[brokers.default]\nprovider = "redis"\nuri = ["redis://:hunter2@cache:6379"]');
    const error = await loadConfigWithAdapters({ configPath: file, env: {} }).catch((e: unknown) => e);
    expect((error as ConfigError).problems[0]).toMatchObject({
      path: 'brokers.default.uri',
      message: expect.stringContaining('must be a string (got ["redis://:***@cache:6379"])'),
    });
    expect((error as ConfigError).message).not.toContain('hunter2');
  });

  it('a redis table without uri is refused in config, not at connect', async () => {
    const error = await loadConfigWithAdapters({ configPath: toml('[brokers.default]\nprovider = "redis"'), env: {} }).catch((e: unknown) => e);
    expect((error as ConfigError).problems).toEqual([{ path: 'brokers.default.uri', message: 'is required for provider "redis"' }]);
  });
});
