/**
 * Every command group of `protean-ts`, in help order. A new group is one file under
 * commands/ exporting a CommandGroup, plus one line here.
 */
import type { CommandGroup } from './command-group.js';
import { registerConfigCommands } from './config.js';
import { registerDbCommands } from './db.js';
import { registerInfoCommands } from './info.js';
import { registerNewCommand } from './new.js';
import { registerServerCommands } from './server.js';
import { registerOutboxCommands } from './outbox.js';
import { registerDlqCommands } from './dlq.js';
import { registerEventsCommands } from './events.js';
import { registerSnapshotCommands } from './snapshot.js';
import { registerProjectionCommands } from './projection.js';
import { registerStatusCommands } from './status.js';
import { registerObservatoryCommands } from './observatory.js';

export type { CommandGroup } from './command-group.js';

export const COMMAND_GROUPS: readonly CommandGroup[] = [
  registerNewCommand,
  registerConfigCommands,
  registerInfoCommands,
  registerDbCommands,
  registerServerCommands,
  registerOutboxCommands,
  registerDlqCommands,
  registerEventsCommands,
  registerSnapshotCommands,
  registerProjectionCommands,
  registerStatusCommands,
  registerObservatoryCommands,
];
