import { describe, expect, it } from 'vitest';
import { whole } from '../src/commands/events.js';
import { CliError, ExitCode } from '../src/errors.js';

describe('a whole-number option (events read --from, --limit, --page-size)', () => {
  it('refuses a position past 2^53 - 1 as a usage error naming the option and the range', () => {
    const parse = whole('--from', 0);
    expect(() => parse('1e30')).toThrow(CliError);
    expect(() => parse('1e30')).toThrow(/--from must be a whole number of at most 9007199254740991/);
    try {
      parse('1e30');
    } catch (error) {
      expect((error as CliError).exitCode).toBe(ExitCode.USAGE);
    }
  });

  it('still refuses values below the minimum and accepts ordinary ones', () => {
    expect(() => whole('--page-size', 1)('0')).toThrow(/--page-size must be a whole number of at least 1/);
    expect(() => whole('--from', 0)('-1')).toThrow(/--from must be a whole number of at least 0/);
    expect(whole('--limit', 1)('5')).toBe(5);
  });
});
