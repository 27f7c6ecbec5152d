/**
 * `[server.flow_control."<subscription>"]`: each key's type and bounds, the cross-key rules (the
 * shared limits need a PostgreSQL inbox, debouncing needs the inbox, error class names), the
 * warning for a threshold no message's attempts can reach, and the defaults that fill the rest.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_PROVIDERS, FLOW_CONTROL_DEFAULTS, validateConfig } from '../../src/index.js';

const providers = { ...BUILTIN_PROVIDERS, databases: ['memory', 'postgresql'] };
const POSTGRES = { default: { provider: 'postgresql', database_uri: 'postgresql://app@127.0.0.1:5432/shop' } };

function check(flow: Record<string, unknown>, rest: Record<string, unknown> = { databases: POSTGRES }) {
  return validateConfig({ ...rest, server: { flow_control: { Notifier: flow } } }, { providers });
}

describe('[server.flow_control]', () => {
  it('accepts every key within bounds, keeping only the keys set (the server fills FLOW_CONTROL_DEFAULTS)', () => {
    const flow = {
      circuit_failure_threshold: 4,
      circuit_open_seconds: 30,
      circuit_errors: ['GatewayDown'],
      rate_limit_per_second: 50,
      rate_limit_burst: 5,
      max_concurrency: 4,
      concurrency_lease_seconds: 30,
      debounce_ms: 500,
    };
    const { config, problems, warnings } = check(flow);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(config.server.flow_control.Notifier).toEqual(flow);
    expect(Object.keys(FLOW_CONTROL_DEFAULTS).sort()).toEqual(Object.keys(flow).sort());
  });

  it.each([
    [{ circuit_failure_threshold: -1 }, 'server.flow_control.Notifier.circuit_failure_threshold'],
    [{ circuit_open_seconds: 0 }, 'server.flow_control.Notifier.circuit_open_seconds'],
    [{ circuit_errors: 'GatewayDown' }, 'server.flow_control.Notifier.circuit_errors'],
    [{ circuit_errors: ['not a class'] }, 'server.flow_control.Notifier.circuit_errors[0]'],
    [{ rate_limit_per_second: -5 }, 'server.flow_control.Notifier.rate_limit_per_second'],
    [{ rate_limit_burst: 0 }, 'server.flow_control.Notifier.rate_limit_burst'],
    [{ max_concurrency: 1.5 }, 'server.flow_control.Notifier.max_concurrency'],
    [{ debounce_ms: 'soon' }, 'server.flow_control.Notifier.debounce_ms'],
  ])('refuses %j, naming %s', (flow, path) => {
    const { problems } = check(flow);
    expect(problems.map((p) => p.path)).toContain(path);
  });

  it('refuses a rate limit or concurrency cap without a PostgreSQL inbox database, saying what to change', () => {
    for (const flow of [{ rate_limit_per_second: 10 }, { max_concurrency: 2 }]) {
      const { problems } = check(flow, {});
      expect(problems).toEqual([
        { path: 'server.flow_control.Notifier', message: expect.stringContaining('remove them or point inbox.database at a PostgreSQL database') },
      ]);
    }
  });

  it('refuses debouncing with the inbox off', () => {
    const { problems } = check({ debounce_ms: 100 }, { databases: POSTGRES, inbox: { enabled: false } });
    expect(problems).toEqual([{ path: 'server.flow_control.Notifier.debounce_ms', message: expect.stringContaining('set [inbox] enabled = true') }]);
  });

  it('warns when the threshold exceeds the attempts a message has (it could be dead-lettered before the circuit opens)', () => {
    const { problems, warnings } = check({ circuit_failure_threshold: 5 });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining('server.flow_control.Notifier.circuit_failure_threshold: 5 failures in a row are more than the 4 attempts'),
    ]);
  });
});
