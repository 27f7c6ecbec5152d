/**
 * `protean-ts` loads only the command group its command line names: each loader must be named
 * after the command its group registers, and anything that names no group (help, a misspelt
 * command) must still see every group, so commander's answers stay the same.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createCliContext } from '../src/cli-context.js';
import { COMMAND_GROUP_LOADERS, commandGroupsFor } from '../src/commands/command-group-loaders.js';
import { registerDlqCommands } from '../src/commands/dlq.js';
import { registerInfoCommands } from '../src/commands/info.js';
import { registerStatusCommands } from '../src/commands/status.js';

describe('the command groups a command line loads', () => {
  it('each loader is named after the one top-level command its group registers', async () => {
    for (const loader of COMMAND_GROUP_LOADERS) {
      const program = new Command('protean-ts');
      (await loader.load())(program, createCliContext({ globals: () => ({}) }));
      expect(program.commands.map((command) => command.name())).toEqual([loader.name]);
    }
  });

  it('loads the group the command line names, past the global options', async () => {
    expect(await commandGroupsFor(['dlq', 'list', 'Receipts'])).toEqual([registerDlqCommands]);
    expect(await commandGroupsFor(['--domain', 'src/domain.ts', '--verbose', 'info', '--json'])).toEqual([registerInfoCommands]);
    expect(await commandGroupsFor(['--config=prod.toml', 'status'])).toEqual([registerStatusCommands]);
    // `--config info` names a file called info: the command is the word after it.
    expect(await commandGroupsFor(['--config', 'info', 'dlq', 'list'])).toEqual([registerDlqCommands]);
  });

  it('loads every group when the command line names none of them', async () => {
    for (const args of [[], ['--help'], ['--version'], ['help', 'dlq'], ['dlw', 'list'], ['--', 'info'], ['--domain']]) {
      expect(await commandGroupsFor(args), args.join(' ')).toHaveLength(COMMAND_GROUP_LOADERS.length);
    }
  });
});
