/**
 * The `protean-ts` program: global options, the command groups from commands/index.ts, and one
 * place that turns errors into messages and exit codes. `main` returns the exit code instead of
 * exiting, so tests and the bin runners decide what to do with it.
 */
import { Command, CommanderError } from 'commander';
import { configureLogging } from '@protean-ts/core';
import { createCliContext, type CliIO, type GlobalOptions } from './cli-context.js';
import { COMMAND_GROUPS } from './commands/index.js';
import { ExitCode, reportError } from './errors.js';
import { cliVersion } from './version.js';

/**
 * Commands that run until stopped: their info logs (started, ready, stopped) are what an operator
 * watches. Every other command answers and exits; its answer is on stdout and its progress lines
 * on stderr, and the domain's own info logs (initialized, closed) would only bury them.
 */
const LONG_RUNNING_COMMANDS = new Set(['server', 'observatory']);

export interface MainOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  io?: CliIO;
}

export function buildProgram(options: MainOptions = {}): Command {
  const io: CliIO = options.io ?? {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  };
  const program = new Command('protean-ts');
  program
    .description('Run and operate a protean-ts domain: configuration, database schema, server')
    .version(cliVersion(), '-V, --version', 'print the protean-ts version')
    .option('--domain <path>', 'module exporting the domain (.ts or .js); default: `module` in domain.toml')
    .option('--config <path>', 'domain.toml to use instead of discovering .domain.toml / domain.toml')
    .option('--verbose', 'debug logging and stack traces on errors')
    .showHelpAfterError('(run protean-ts --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .hook('preAction', (_program, action) => {
      if (program.opts<GlobalOptions>().verbose) configureLogging({ level: 'debug' });
      else if (!(options.env ?? process.env).PROTEAN_LOG_LEVEL && !LONG_RUNNING_COMMANDS.has(topLevelName(action))) configureLogging({ level: 'warn' });
    });
  const context = createCliContext({ globals: () => program.opts<GlobalOptions>(), cwd: options.cwd, env: options.env, io });
  for (const register of COMMAND_GROUPS) register(program, context);
  return program;
}

/** `dlq` for `protean-ts dlq list`: the command under the program. */
function topLevelName(command: Command): string {
  let current = command;
  while (current.parent?.parent) current = current.parent;
  return current.name();
}

/** Runs the program on `argv` (process.argv shape: node, script, args…) and resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv, options: MainOptions = {}): Promise<number> {
  const program = buildProgram(options);
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
