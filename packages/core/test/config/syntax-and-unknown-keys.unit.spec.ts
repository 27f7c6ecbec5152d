import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

describe('TOML syntax errors', () => {
  it('name the file and the line', () => {
    const file = tomlFile('event_processing = "sync"\n\n[server]\nmessages_per_tick = = 3\n');
    try {
      loadConfig({ configPath: file, env: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { problems, message } = error as ConfigError;
      expect(problems).toHaveLength(1);
      expect(problems[0]!.line).toBe(4);
      expect(message).toContain(`${file}:4:`);
      expect(message).toContain('line 4');
    }
  });

  it('an unterminated table header points at its line', () => {
    const file = tomlFile('identity_strategy = "uuid"\n[databases.default\nprovider = "memory"\n');
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(`${file}:2:`);
  });
});

describe('unknown keys', () => {
  it('warn with a did-you-mean suggestion and are dropped', () => {
    const file = tomlFile('enable_outbx = true\n[server]\nmessages_per_tik = 5\n[outbox.retry]\nmax_attempt = 3\n');
    const loaded = loadConfig({ configPath: file, env: {} });
    expect(loaded.warnings).toHaveLength(3);
    expect(loaded.warnings).toEqual(
      expect.arrayContaining([
        'domain.toml: unknown key `enable_outbx` is ignored; did you mean `enable_outbox`?',
        'domain.toml: unknown key `server.messages_per_tik` is ignored; did you mean `messages_per_tick`?',
        'domain.toml: unknown key `outbox.retry.max_attempt` is ignored; did you mean `max_attempts`?',
      ]),
    );
    expect(loaded.config).not.toHaveProperty('enable_outbx');
    expect(loaded.config.server).not.toHaveProperty('messages_per_tik');
    expect(loaded.config.enable_outbox).toBe(true);
  });

  it('warn without a suggestion when nothing is close', () => {
    const loaded = loadConfig({ configPath: tomlFile('[server]\ncolour = "blue"'), env: {} });
    expect(loaded.warnings).toEqual(['domain.toml: unknown key `server.colour` is ignored']);
  });

  it('warn inside provider tables too, against the keys the provider declares', () => {
    const file = tomlFile('[databases.default]\nprovider = "memory"\nmanage = false\n[brokers.default]\nprovider = "inline"\nmaxln = 5\nmaxlen = 7');
    const loaded = loadConfig({ configPath: file, env: {} });
    expect(loaded.warnings).toEqual([
      'domain.toml: unknown key `databases.default.manage` for provider "memory" is ignored; did you mean `managed`?',
      'domain.toml: unknown key `brokers.default.maxln` for provider "inline" is ignored; did you mean `maxlen`?',
    ]);
    expect(loaded.config.databases.default).not.toHaveProperty('manage');
    expect(loaded.config.brokers.default).toEqual({ provider: 'inline', maxlen: 7 });
  });
});
