/**
 * `protean-ts config check`: loads domain.toml the way the domain will, validates it and prints
 * the resolved configuration (secrets masked) as TOML or JSON. Warnings go to stderr; an
 * invalid configuration exits 1 with every problem listed.
 */
import { formatConfig } from '@protean-ts/core';
import type { CommandGroup } from './command-group.js';

export const registerConfigCommands: CommandGroup = (program, context) => {
  const config = program.command('config').description('Inspect the configuration (domain.toml)');

  config
    .command('check')
    .description('Load, validate and print the resolved configuration, defaults filled and secrets masked')
    .option('--json', 'print JSON instead of TOML')
    .action((options: { json?: boolean }) => {
      const loaded = context.loadConfig();
      const { io } = context;
      const source = loaded.file ?? 'defaults (no .domain.toml or domain.toml found)';
      io.stderr(`Configuration: ${source}${loaded.environment ? ` (PROTEAN_ENV=${loaded.environment})` : ''}\n`);
      for (const warning of loaded.warnings) io.stderr(`warning: ${warning}\n`);
      io.stdout(formatConfig(loaded.config, options.json ? 'json' : 'toml'));
      io.stderr('Configuration is valid.\n');
    });
};
