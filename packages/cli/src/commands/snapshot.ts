/**
 * `protean-ts snapshot create [--aggregate A] [--id X]`: writes a snapshot of the current state of
 * event-sourced aggregates (all of them, those of A, or A's aggregate X), each loaded through its
 * repository's `writeSnapshot`, the same load that snapshots at `snapshot_threshold`.
 * `protean-ts snapshot verify` runs the checks a load runs on the same aggregates' snapshots
 * (`checkSnapshot`) and lists each one a load would ignore, with its reason (exit 1 if any). Streams
 * are found by reading each aggregate's category page by page, with progress on stderr.
 */
import { EventSourcedRepository, type BaseAggregate, type ClassRef, type Domain, type EventStore } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-context.js';
import { echoId, requiredId } from '../user-supplied-ids.js';
import type { CommandGroup } from './command-group.js';
import { categoryPages, eventSourcedAggregate, plural, whole, withStore } from './events.js';

const PAGE_SIZE = 1000;

interface SnapshotOptions {
  aggregate?: string;
  id?: string;
  pageSize: number;
}

interface Tally {
  written: number;
  current: number;
}

type AggregateRecord = ReturnType<typeof eventSourcedAggregate>;

export const registerSnapshotCommands: CommandGroup = (program, context) => {
  const snapshot = program.command('snapshot').description('Snapshots of event-sourced aggregates');

  snapshot
    .command('create')
    .description('Write a snapshot of the current state of event-sourced aggregates (all, those of --aggregate, or the one --id of --aggregate)')
    .option('--aggregate <name>', 'event-sourced aggregate class name, e.g. Account')
    .option('--id <id>', 'one aggregate id (needs --aggregate)')
    .option('--page-size <n>', 'events per category read when finding the aggregates', whole('--page-size', 1), PAGE_SIZE)
    .action(async (options: SnapshotOptions) => {
      // Checked before the domain is loaded: a wrong command line needs no database to be refused.
      const checked = checkedOptions(options, 'create');
      await withStore(context, (store, domain) => create(store, domain, context.io, checked));
    });

  snapshot
    .command('verify')
    .description('Check the snapshots of event-sourced aggregates as a load does, listing each one a load would ignore with its reason (exit 1 if any)')
    .option('--aggregate <name>', 'event-sourced aggregate class name, e.g. Account')
    .option('--id <id>', 'one aggregate id (needs --aggregate)')
    .option('--page-size <n>', 'events per category read when finding the aggregates', whole('--page-size', 1), PAGE_SIZE)
    .action(async (options: SnapshotOptions) => {
      // Checked before the domain is loaded: a wrong command line needs no database to be refused.
      const checked = checkedOptions(options, 'verify');
      await withStore(context, (store, domain) => verify(store, domain, context.io, checked));
    });
};

function checkedOptions(options: SnapshotOptions, command: string): SnapshotOptions {
  if (options.id !== undefined && options.aggregate === undefined) {
    throw new CliError(`snapshot ${command}: --id needs --aggregate (the id is one of that aggregate's ids), e.g. --aggregate Account --id 42`, ExitCode.USAGE);
  }
  if (options.id !== undefined) requiredId(options.id, `snapshot ${command}: --id`, '--aggregate Account --id 42');
  return options;
}

async function create(store: EventStore, domain: Domain, io: CliIO, options: SnapshotOptions): Promise<void> {
  const tally: Tally = { written: 0, current: 0 };
  await eachAggregate(store, domain, io, options, 'create', async (repository, record, id) => {
    const outcome = await repository.writeSnapshot(id);
    if (!outcome) {
      if (options.id === undefined) return;
      throw new CliError(`snapshot create: ${record.name} ${echoId(id)} has no events (its stream ${record.options.streamCategory}-<id> is empty)`);
    }
    tally[outcome.written ? 'written' : 'current'] += 1;
  });
  io.stdout(`snapshot create: ${tally.written} ${plural(tally.written, 'snapshot')} written, ${tally.current} already current\n`);
}

async function verify(store: EventStore, domain: Domain, io: CliIO, options: SnapshotOptions): Promise<void> {
  let checked = 0;
  let bad = 0;
  await eachAggregate(store, domain, io, options, 'verify', async (repository, _record, id) => {
    const outcome = await repository.checkSnapshot(id);
    if (!outcome) return;
    checked += 1;
    if (outcome.problem === undefined) return;
    bad += 1;
    io.stdout(`bad snapshot: ${outcome.stream} version ${outcome.version}: ${outcome.problem}\n`);
  });
  io.stdout(`snapshot verify: ${checked} ${plural(checked, 'snapshot')} checked, ${bad} bad\n`);
  if (bad > 0) {
    throw new CliError(
      `snapshot verify: ${bad} bad ${plural(bad, 'snapshot')}; loads ignore ${bad === 1 ? 'it' : 'them'} and replay the events, and \`protean-ts snapshot create\` replaces ${bad === 1 ? 'it' : 'them'}`,
    );
  }
}

/** Calls `visit` for each chosen aggregate id: --id, or each stream of the chosen aggregates' categories. */
async function eachAggregate(
  store: EventStore,
  domain: Domain,
  io: CliIO,
  options: SnapshotOptions,
  command: string,
  visit: (repository: EventSourcedRepository<BaseAggregate>, record: AggregateRecord, id: string) => Promise<void>,
): Promise<void> {
  const records =
    options.aggregate === undefined
      ? domain.recordsOf('aggregate').filter((r) => r.options.isEventSourced)
      : [eventSourcedAggregate(domain, options.aggregate, `snapshot ${command}`)];
  for (const record of records) {
    const repository = domain.repositoryFor(record.cls as ClassRef<BaseAggregate>);
    if (!(repository instanceof EventSourcedRepository)) {
      throw new CliError(
        `snapshot ${command}: the repository of ${record.name} is no EventSourcedRepository; a custom repository of an event-sourced aggregate must extend it`,
      );
    }
    if (options.id !== undefined) {
      await visit(repository, record, options.id);
      continue;
    }
    let pages = 0;
    await eachStreamId(
      store,
      record.options.streamCategory,
      options.pageSize,
      (id) => visit(repository, record, id),
      (seen) => {
        // Once finding the aggregates needs a second page, a running count, so short runs stay quiet.
        pages += 1;
        if (pages > 1) io.stderr(`snapshot ${command}: ${record.name}: ${seen} ${plural(seen, 'aggregate')}…\n`);
      },
    );
  }
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
