/**
 * How the command reports failure: one clear line (plus the problem list of a ConfigError),
 * an exit code, and the stack only with --verbose. Commands throw CliError for expected,
 * user-fixable failures; anything else is reported as unexpected.
 */
import { ConfigError } from '@protean-ts/core/config';
import { CliError, ExitCode } from './cli-error.js';

export { CliError, ExitCode };

/** Writes the error to `stderr` and returns the exit code to use. */
export function reportError(error: unknown, options: { verbose: boolean; stderr: (text: string) => void }): number {
  const { verbose, stderr } = options;
  if (error instanceof CliError || error instanceof ConfigError) {
    stderr(`protean-ts: error: ${error.message}\n`);
    if (verbose) stderr(`${stackOf(error)}${causeChain(error)}\n`);
    return error instanceof CliError ? error.exitCode : ExitCode.FAILURE;
  }
  if (error instanceof Error) {
    // Adapter and runtime errors are Error subclasses with messages written for users.
    stderr(`protean-ts: error: ${error.name !== 'Error' ? `${error.name}: ` : ''}${error.message}\n`);
    stderr(verbose ? `${stackOf(error)}${causeChain(error)}\n` : 'Run again with --verbose for the stack trace.\n');
    return ExitCode.FAILURE;
  }
  stderr(`protean-ts: error: ${String(error)}\n`);
  return ExitCode.FAILURE;
}

function stackOf(error: Error): string {
  return error.stack ?? `${error.name}: ${error.message}`;
}

function causeChain(error: Error): string {
  let text = '';
  let cause = error.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    text += `\nCaused by: ${cause instanceof Error ? stackOf(cause) : String(cause)}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}
