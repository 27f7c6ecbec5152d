/**
 * The `protean-ts` program without its commands: global options, output streams, the log level
 * and the shared context. main.ts adds the command groups a command line needs, buildProgram all.
 */
import { Command } from 'commander';
import { createCliContext, type CliIO, type GlobalOptions } from './cli-context.js';
import type { CommandGroup } from './commands/command-group.js';
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

export function createProgram(options: MainOptions, groups: readonly CommandGroup[]): Command {
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
    .hook('preAction', async (_program, action) => {
      // Imported here, not above: a usage error or --help never needs @protean-ts/core.
      const { configureLogging } = await import('@protean-ts/core');
      if (program.opts<GlobalOptions>().verbose) configureLogging({ level: 'debug' });
      else if (!(options.env ?? process.env).PROTEAN_LOG_LEVEL && !LONG_RUNNING_COMMANDS.has(topLevelName(action))) configureLogging({ level: 'warn' });
    });
  const context = createCliContext({ globals: () => program.opts<GlobalOptions>(), cwd: options.cwd, env: options.env, io });
  for (const register of groups) register(program, context);
  return program;
}

/** `dlq` for `protean-ts dlq list`: the command under the program. */
function topLevelName(command: Command): string {
  let current = command;
  while (current.parent?.parent) current = current.parent;
  return current.name();
}
