/**
 * Every command group of `protean-ts`, in help order, for programs that register them all
 * (`buildProgram`). The list itself is commands/command-group-loaders.ts.
 */
import type { CommandGroup } from './command-group.js';
import { COMMAND_GROUP_LOADERS } from './command-group-loaders.js';

export type { CommandGroup } from './command-group.js';

export const COMMAND_GROUPS: readonly CommandGroup[] = await Promise.all(COMMAND_GROUP_LOADERS.map((group) => group.load()));
