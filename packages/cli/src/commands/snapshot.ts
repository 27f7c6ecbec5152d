/**
 * `protean-ts snapshot create [--aggregate A] [--id X]`: writes a snapshot of the current state of
 * event-sourced aggregates (all of them, those of A, or A's aggregate X), each loaded through its
 * repository's `writeSnapshot`, the same load that snapshots at `snapshot_threshold`. Streams are
 * found by reading each aggregate's category page by page, with progress on stderr.
 */
import { EventSourcedRepository, type BaseAggregate, type ClassRef, type Domain, type EventStore } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';
import { categoryPages, eventSourcedAggregate, plural, whole, withStore } from './events.js';

const PAGE_SIZE = 1000;

interface CreateOptions {
  aggregate?: string;
  id?: string;
  pageSize: number;
}

interface Tally {
  written: number;
  current: number;
}

export const registerSnapshotCommands: CommandGroup = (program, context) => {
  const snapshot = program.command('snapshot').description('Snapshots of event-sourced aggregates');

  snapshot
    .command('create')
    .description('Write a snapshot of the current state of event-sourced aggregates (all, those of --aggregate, or the one --id of --aggregate)')
    .option('--aggregate <name>', 'event-sourced aggregate class name, e.g. Account')
    .option('--id <id>', 'one aggregate id (needs --aggregate)')
    .option('--page-size <n>', 'events per category read when finding the aggregates', whole('--page-size', 1), PAGE_SIZE)
    .action(async (options: CreateOptions) => {
      if (options.id !== undefined && options.aggregate === undefined) {
        throw new CliError("snapshot create: --id needs --aggregate (the id is one of that aggregate's ids), e.g. --aggregate Account --id 42", ExitCode.USAGE);
      }
      await withStore(context, (store, domain) => create(store, domain, context.io, options));
    });
};

async function create(store: EventStore, domain: Domain, io: CliIO, options: CreateOptions): Promise<void> {
  const records =
    options.aggregate === undefined
      ? domain.recordsOf('aggregate').filter((r) => r.options.isEventSourced)
      : [eventSourcedAggregate(domain, options.aggregate, 'snapshot create')];
  const tally: Tally = { written: 0, current: 0 };
  for (const record of records) {
    const repository = domain.repositoryFor(record.cls as ClassRef<BaseAggregate>);
    if (!(repository instanceof EventSourcedRepository)) {
      throw new CliError(
        `snapshot create: the repository of ${record.name} is no EventSourcedRepository; a custom repository of an event-sourced aggregate must extend it`,
      );
    }
    const snapshotOne = async (id: string): Promise<boolean> => {
      const outcome = await repository.writeSnapshot(id);
      if (!outcome) return false;
      tally[outcome.written ? 'written' : 'current'] += 1;
      return true;
    };
    if (options.id !== undefined) {
      if (!(await snapshotOne(options.id))) {
        throw new CliError(`snapshot create: ${record.name} ${options.id} has no events (stream ${record.options.streamCategory}-${options.id} is empty)`);
      }
      continue;
    }
    let pages = 0;
    await eachStreamId(store, record.options.streamCategory, options.pageSize, snapshotOne, (seen) => {
      // Once finding the aggregates needs a second page, a running count, so short runs stay quiet.
      pages += 1;
      if (pages > 1) io.stderr(`snapshot create: ${record.name}: ${seen} ${plural(seen, 'aggregate')}…\n`);
    });
  }
  io.stdout(`snapshot create: ${tally.written} ${plural(tally.written, 'snapshot')} written, ${tally.current} already current\n`);
}

/** Calls `visit` once per stream of the category, in order of first event, reading the category in pages; `pageDone` after each page. */
async function eachStreamId(
  store: EventStore,
  category: string,
  pageSize: number,
  visit: (id: string) => Promise<unknown>,
  pageDone: (seen: number) => void,
): Promise<void> {
  const seen = new Set<string>();
  for await (const page of categoryPages(store, category, pageSize, Number.POSITIVE_INFINITY, 'snapshot')) {
    for (const event of page) {
      if (seen.has(event.streamName)) continue;
      seen.add(event.streamName);
      await visit(event.streamName.slice(category.length + 1));
    }
    pageDone(seen.size);
  }
}
