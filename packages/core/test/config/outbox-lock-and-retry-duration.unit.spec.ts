/** The `outbox.lock_seconds` and `outbox.retry.max_total_seconds` keys: defaults, bounds, errors naming the key. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/index.js';
import { tomlFile } from './config-fixture.js';

const load = (toml: string) => loadConfig({ configPath: tomlFile(toml), env: {} }).config;

function problemOf(toml: string): { path: string; message: string } {
  try {
    load(toml);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    return problems[0]!;
  }
  throw new Error(`expected a ConfigError for:\n${toml}`);
}

describe('outbox.lock_seconds and outbox.retry.max_total_seconds', () => {
  it('default to a 30-second lock and a one-hour retry window', () => {
    const { outbox } = load('');
    expect(outbox.lock_seconds).toBe(30);
    expect(outbox.retry.max_total_seconds).toBe(3600);
  });

  it('accept the lock bounds, fractions between them, and 0 (no bound) for the retry window', () => {
    expect(load('[outbox]\nlock_seconds = 1').outbox.lock_seconds).toBe(1);
    expect(load('[outbox]\nlock_seconds = 3600').outbox.lock_seconds).toBe(3600);
    expect(load('[outbox]\nlock_seconds = 2.5').outbox.lock_seconds).toBe(2.5);
    expect(load('[outbox.retry]\nmax_total_seconds = 0').outbox.retry.max_total_seconds).toBe(0);
    expect(load('[outbox.retry]\nmax_total_seconds = 86400').outbox.retry.max_total_seconds).toBe(86400);
  });

  it.each([
    ['[outbox]\nlock_seconds = 0.5', 'outbox.lock_seconds', '0.5'],
    ['[outbox]\nlock_seconds = 0', 'outbox.lock_seconds', '0'],
    ['[outbox]\nlock_seconds = 3601', 'outbox.lock_seconds', '3601'],
    ['[outbox]\nlock_seconds = "30"', 'outbox.lock_seconds', '"30"'],
    ['[outbox.retry]\nmax_total_seconds = -1', 'outbox.retry.max_total_seconds', '-1'],
    ['[outbox.retry]\nmax_total_seconds = "1h"', 'outbox.retry.max_total_seconds', '"1h"'],
    ['[outbox.retry]\nmax_total_seconds = 2147484', 'outbox.retry.max_total_seconds', '2147484'],
  ])('%s is refused, naming %s', (toml, path, got) => {
    const problem = problemOf(toml);
    expect(problem.path).toBe(path);
    expect(problem.message).toContain(`(got ${got})`);
  });
});
