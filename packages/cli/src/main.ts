/**
 * Runs `protean-ts`: the program with the command groups its command line needs
 * (commands/command-group-loaders.ts), and one place that turns errors into messages and exit
 * codes. `main` returns the exit code instead of exiting, so tests and the bin runners decide
 * what to do with it.
 */
import { CommanderError } from 'commander';
import type { GlobalOptions } from './cli-context.js';
import { commandGroupsFor } from './commands/command-group-loaders.js';
import { ExitCode, reportError } from './errors.js';
import { createProgram, type MainOptions } from './program.js';

export type { MainOptions } from './program.js';

/** Runs the program on `argv` (process.argv shape: node, script, args…) and resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv, options: MainOptions = {}): Promise<number> {
  const program = createProgram(options, await commandGroupsFor(argv.slice(2)));
  const stderr = options.io?.stderr ?? ((text: string) => void process.stderr.write(text));
  try {
    await program.parseAsync([...argv]);
    return ExitCode.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.OK;
      // Commander has already printed its message; `protean-ts` alone prints help and exits 1.
      return error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync' ? ExitCode.FAILURE : ExitCode.USAGE;
    }
    return reportError(error, { verbose: program.opts<GlobalOptions>().verbose === true, stderr });
  }
}
