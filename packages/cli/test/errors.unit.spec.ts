import { describe, expect, it } from 'vitest';
import { ConfigError } from '@protean-ts/core';
import { CliError, ExitCode, reportError } from '../src/errors.js';

function report(error: unknown, verbose = false): { code: number; text: string } {
  let text = '';
  const code = reportError(error, { verbose, stderr: (t) => (text += t) });
  return { code, text };
}

describe('reportError', () => {
  it('prints a CliError as one line with its exit code', () => {
    expect(report(new CliError('bad thing; do X', 3))).toEqual({ code: 3, text: 'protean-ts: error: bad thing; do X\n' });
  });

  it('prints every problem of a ConfigError, exit 1', () => {
    const { code, text } = report(new ConfigError([{ path: 'server.health.port', message: 'must be an integer' }], '/x/domain.toml'));
    expect(code).toBe(ExitCode.FAILURE);
    expect(text).toContain('/x/domain.toml');
    expect(text).toContain('  - server.health.port: must be an integer');
  });

  it('hints at --verbose for unexpected errors and shows the stack and causes only with it', () => {
    const error = new RangeError('outer', { cause: new Error('inner cause') });
    const quiet = report(error);
    expect(quiet.code).toBe(1);
    expect(quiet.text).toBe('protean-ts: error: RangeError: outer\nRun again with --verbose for the stack trace.\n');
    const loud = report(error, true);
    expect(loud.text).toMatch(/\n\s+at /);
    expect(loud.text).toContain('Caused by: Error: inner cause');
  });

  it('copes with thrown non-errors', () => {
    expect(report('just a string')).toEqual({ code: 1, text: 'protean-ts: error: just a string\n' });
  });
});
