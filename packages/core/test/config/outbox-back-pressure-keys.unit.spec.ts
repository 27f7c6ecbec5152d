/** The `outbox.max_consumer_lag` and `outbox.lag_check_interval` keys (relay back-pressure): defaults, bounds, errors naming the key. */
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

describe('outbox.max_consumer_lag and outbox.lag_check_interval', () => {
  it('default to off, checked every second', () => {
    const { outbox } = load('');
    expect(outbox.max_consumer_lag).toBe(0);
    expect(outbox.lag_check_interval).toBe(1);
  });

  it('accept a bound and a fractional interval', () => {
    const { outbox } = load('[outbox]\nmax_consumer_lag = 10000\nlag_check_interval = 0.25');
    expect(outbox.max_consumer_lag).toBe(10000);
    expect(outbox.lag_check_interval).toBe(0.25);
  });

  it.each([
    ['[outbox]\nmax_consumer_lag = -1', 'outbox.max_consumer_lag', '-1'],
    ['[outbox]\nmax_consumer_lag = 2.5', 'outbox.max_consumer_lag', '2.5'],
    ['[outbox]\nmax_consumer_lag = "1000"', 'outbox.max_consumer_lag', '"1000"'],
    ['[outbox]\nlag_check_interval = 0', 'outbox.lag_check_interval', '0'],
    ['[outbox]\nlag_check_interval = 3601', 'outbox.lag_check_interval', '3601'],
  ])('%s is refused, naming %s', (toml, path, got) => {
    const problem = problemOf(toml);
    expect(problem.path).toBe(path);
    expect(problem.message).toContain(`(got ${got})`);
  });
});
