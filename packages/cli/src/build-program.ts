/** The whole `protean-ts` program, every command group registered, for callers that parse it themselves. */
import type { Command } from 'commander';
import { COMMAND_GROUPS } from './commands/index.js';
import { createProgram, type MainOptions } from './program.js';

export function buildProgram(options: MainOptions = {}): Command {
  return createProgram(options, COMMAND_GROUPS);
}
