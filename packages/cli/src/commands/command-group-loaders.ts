/**
 * Every command group of `protean-ts`, in help order, each imported only when needed: a command
 * line that names one group loads that group's file alone, so `info` never loads what `server`
 * imports (the Engine of @protean-ts/server and its metrics SDK). A new group is one file under
 * commands/ exporting a CommandGroup, plus one line here.
 */
import type { CommandGroup } from './command-group.js';

export interface CommandGroupLoader {
  /** The top-level command the group registers. */
  readonly name: string;
  load(): Promise<CommandGroup>;
}

export const COMMAND_GROUP_LOADERS: readonly CommandGroupLoader[] = [
  { name: 'new', load: async () => (await import('./new.js')).registerNewCommand },
  { name: 'config', load: async () => (await import('./config.js')).registerConfigCommands },
  { name: 'info', load: async () => (await import('./info.js')).registerInfoCommands },
  { name: 'catalog', load: async () => (await import('./catalog.js')).registerCatalogCommands },
  { name: 'schema', load: async () => (await import('./schema.js')).registerSchemaCommands },
  { name: 'db', load: async () => (await import('./db.js')).registerDbCommands },
  { name: 'server', load: async () => (await import('./server.js')).registerServerCommands },
  { name: 'outbox', load: async () => (await import('./outbox.js')).registerOutboxCommands },
  { name: 'dlq', load: async () => (await import('./dlq.js')).registerDlqCommands },
  { name: 'events', load: async () => (await import('./events.js')).registerEventsCommands },
  { name: 'snapshot', load: async () => (await import('./snapshot.js')).registerSnapshotCommands },
  { name: 'projection', load: async () => (await import('./projection.js')).registerProjectionCommands },
  { name: 'status', load: async () => (await import('./status.js')).registerStatusCommands },
  { name: 'observatory', load: async () => (await import('./observatory.js')).registerObservatoryCommands },
];

/** Global options that take a value (`--domain <path>`): the word after them is no command name. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(['--domain', '--config']);

/**
 * The groups a command line needs (`args`: after node and the script): the one it names, or
 * every group when it names none of them (`--help`, `help dlq`, a misspelt command, which
 * commander answers with the full list).
 */
export async function commandGroupsFor(args: readonly string[]): Promise<CommandGroup[]> {
  const named = COMMAND_GROUP_LOADERS.find((group) => group.name === commandNameIn(args));
  return Promise.all((named ? [named] : COMMAND_GROUP_LOADERS).map((group) => group.load()));
}

function commandNameIn(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}
