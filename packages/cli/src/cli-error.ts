/** The error commands throw for expected, user-fixable failures, carrying the exit code to use. */

export const ExitCode = {
  OK: 0,
  /** The command ran and failed (bad configuration, unreachable service, …). */
  FAILURE: 1,
  /** The command line itself is wrong (unknown option, missing argument). */
  USAGE: 2,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.FAILURE,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
