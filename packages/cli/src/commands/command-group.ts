/** The shape of a command file: it adds its commands to the program, using the shared context. */
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';

export type CommandGroup = (program: Command, context: CliContext) => void;
