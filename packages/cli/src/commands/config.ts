/**
 * `protean-ts config check`: loads domain.toml the way the domain will, validates it and prints
 * the resolved configuration (secrets masked) as TOML or JSON. Warnings go to stderr; an
 * invalid configuration exits 1 with every problem listed (and, with --strict, any warning).
 */
import { formatConfig } from '@protean-ts/core';
import { CliError } from '../cli-error.js';
import type { CommandGroup } from './command-group.js';

export const registerConfigCommands: CommandGroup = (program, context) => {
  const config = program.command('config').description('Inspect the configuration (domain.toml)');

  config
    .command('check')
    .description('Load, validate and print the resolved configuration, defaults filled and secrets masked')
    .option('--json', 'print JSON instead of TOML')
    .option('--strict', 'treat warnings (unknown keys, a missing environment table) as errors, e.g. in CI')
    .action(async (options: { json?: boolean; strict?: boolean }) => {
      const loaded = await context.loadConfig();
      const { io } = context;
      const source = loaded.file ?? 'defaults (no .domain.toml or domain.toml found)';
      io.stderr(`Configuration: ${source}${loaded.environment ? ` (PROTEAN_ENV=${loaded.environment})` : ''}\n`);
      for (const warning of loaded.warnings) io.stderr(`warning: ${warning}\n`);
      io.stdout(formatConfig(loaded.config, options.json ? 'json' : 'toml'));
      if (options.strict && loaded.warnings.length) {
        throw new CliError(`--strict: the configuration has ${loaded.warnings.length} warning(s); fix them or drop --strict`);
      }
      io.stderr('Configuration is valid.\n');
    });
};
