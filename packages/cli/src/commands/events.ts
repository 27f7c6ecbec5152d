/**
 * `protean-ts events read | history | stats | subscriptions`: what the event store holds. `read` shows a stream
 * (entity stream from a position, category or `$all` from the start), `history` the events of one
 * event-sourced aggregate, `stats` the streams and events per category. Every read goes through the
 * store's page API, so a long stream is never loaded in one query; progress goes to stderr.
 */
import { ALL_STREAMS, categoryOf, committedPages, isCategory, isEntityStream, type Domain, type EventStore, type StoredEvent } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext, CliIO } from '../cli-context.js';
import { echoId, requiredId } from '../user-supplied-ids.js';
import type { CommandGroup } from './command-group.js';
import type { SubscriptionsOptions } from './events-subscriptions.js';

const PAGE_SIZE = 1000;

interface ReadOptions {
  from?: number;
  limit?: number;
  pageSize: number;
  json?: boolean;
}

export const registerEventsCommands: CommandGroup = (program, context) => {
  const events = program.command('events').description('Inspect the event store: read streams, aggregate histories, counts');

  events
    .command('read')
    .description(`Read events: an entity stream <domain>::<category>-<id> (from --from), a category <domain>::<category> or ${ALL_STREAMS} (from the start)`)
    .argument('<stream>', `entity stream, category or ${ALL_STREAMS}`)
    .option('--from <n>', 'first stream position (entity streams only)', whole('--from', 0))
    .option('--limit <n>', 'at most this many events', whole('--limit', 1))
    .option('--page-size <n>', 'events per store read', whole('--page-size', 1), PAGE_SIZE)
    .option('--json', 'print the records as JSON')
    .action((stream: string, options: ReadOptions) => {
      requiredId(stream, 'events read: <stream>', 'shop::order-42');
      return withStore(context, (store) => read(store, context.io, stream, options));
    });

  events
    .command('history')
    .description("Each event of an event-sourced aggregate's stream, with its version and time")
    .argument('<aggregate>', 'event-sourced aggregate class name, e.g. Account')
    .argument('<id>', 'aggregate id')
    .option('--json', 'print the records as JSON')
    .action((aggregate: string, id: string, options: { json?: boolean }) => {
      requiredId(id, 'events history: <id>', `events history ${aggregate} 42`);
      return withStore(context, (store, domain) => history(store, domain, context.io, aggregate, id, options.json === true));
    });

  events
    .command('stats')
    .description('Streams, events per category and the head (highest global) position of the event store')
    .option('--page-size <n>', 'events per store read', whole('--page-size', 1), PAGE_SIZE)
    .option('--json', 'print JSON')
    .action((options: { pageSize: number; json?: boolean }) => withStore(context, (store) => stats(store, context.io, options)));

  events
    .command('subscriptions')
    .description('Event-store subscriptions: the worker holding each lease, the saved cursor, events behind it, dead letters')
    .option('--max-count <n>', 'count events behind a cursor up to this many', whole('--max-count', 1), 100_000)
    .option('--json', 'print JSON')
    .action(async (options: SubscriptionsOptions) => {
      // Imported here: only `events subscriptions` needs @protean-ts/server (its subscription plan).
      const { subscriptions } = await import('./events-subscriptions.js');
      return withStore(context, (store, domain) => subscriptions(store, domain, context.io, options));
    });
};

export async function withStore(context: CliContext, work: (store: EventStore, domain: Domain) => Promise<void>): Promise<void> {
  const domain = await context.initDomain();
  try {
    await work(eventStoreOf(domain), domain);
  } finally {
    await domain.close();
  }
}

/** The configured store, refused when it is in memory: another process's memory is out of reach. */
function eventStoreOf(domain: Domain): EventStore {
  const database = domain.config.event_store.database;
  const provider = domain.providers.get(database);
  if (!provider)
    throw new CliError(`[event_store] database = "${database}" names no [databases.${database}]; add that table or point event_store.database at one`);
  if (provider.kind === 'memory') {
    throw new CliError(
      `no event store to read: [event_store] database = "${database}" is a memory database, whose events live only in the process that wrote them; ` +
        'set [event_store] database to a [databases.<name>] with provider = "postgresql", or give the store its own database with ' +
        '[event_store] provider = "postgresql" and database_uri (see docs/event-sourcing.md)',
    );
  }
  return provider.eventStore;
}

/** The registered event-sourced aggregate of that name; a usage error naming the event-sourced ones otherwise. */
export function eventSourcedAggregate(domain: Domain, aggregateName: string, command: string) {
  const eventSourced = domain.recordsOf('aggregate').filter((r) => r.options.isEventSourced);
  const aggregate = eventSourced.find((r) => r.name === aggregateName);
  if (!aggregate) {
    const known = eventSourced.map((r) => r.name).join(', ') || 'none';
    const exists = domain.recordsOf('aggregate').some((r) => r.name === aggregateName);
    const why = exists ? `${aggregateName} is not event-sourced` : `no aggregate is named ${aggregateName}`;
    throw new CliError(`${command}: ${why} (event-sourced aggregates: ${known})`, ExitCode.USAGE);
  }
  return aggregate;
}

async function read(store: EventStore, io: CliIO, stream: string, options: ReadOptions): Promise<void> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const progress = progressReporter(io, 'events read');
  const events: StoredEvent[] = [];
  if (isEntityStream(stream)) {
    let from = options.from ?? 0;
    for (;;) {
      const size = Math.min(options.pageSize, limit - events.length);
      const page = await store.readStream(stream, { from, limit: size });
      events.push(...page);
      progress(events.length);
      if (page.length < size || events.length >= limit) break;
      from = page[page.length - 1]!.position + 1;
    }
  } else if (isCategory(stream)) {
    if (options.from !== undefined) {
      throw new CliError(
        `--from is a position in one entity stream; a category or ${ALL_STREAMS} is read from the start (use --limit to stop early)`,
        ExitCode.USAGE,
      );
    }
    for await (const page of categoryPages(store, stream, options.pageSize, limit, 'events read')) {
      events.push(...page);
      progress(events.length);
    }
  } else {
    throw new CliError(
      `events read: ${echoId(stream)} is no stream name; give an entity stream <domain>::<category>-<id> (e.g. shop::order-42), a category <domain>::<category> (e.g. shop::order) or ${ALL_STREAMS}`,
      ExitCode.USAGE,
    );
  }
  if (options.json) {
    io.stdout(`${JSON.stringify(events.map(record), null, 2)}\n`);
    return;
  }
  for (const event of events) {
    io.stdout(
      `${event.position}  ${event.globalPosition}  ${event.time.toISOString()}  ${event.type}  ${event.messageId}${isEntityStream(stream) ? '' : `  ${event.streamName}`}\n`,
    );
  }
  io.stdout(`events read: ${events.length} ${plural(events.length, 'event')} of ${stream}\n`);
}

async function history(store: EventStore, domain: Domain, io: CliIO, aggregateName: string, id: string, json: boolean): Promise<void> {
  const aggregate = eventSourcedAggregate(domain, aggregateName, 'events history');
  const stream = `${aggregate.options.streamCategory}-${id}`;
  const events: StoredEvent[] = [];
  const progress = progressReporter(io, 'events history');
  for (;;) {
    const page = await store.readStream(stream, { from: events.length, limit: PAGE_SIZE });
    events.push(...page);
    progress(events.length);
    if (page.length < PAGE_SIZE) break;
  }
  if (events.length === 0) {
    // The id once: it is also the end of the stream name, and it may be long.
    throw new CliError(`events history: ${aggregateName} ${echoId(id)} has no events (its stream ${aggregate.options.streamCategory}-<id> is empty)`);
  }
  if (json) {
    io.stdout(`${JSON.stringify(events.map(record), null, 2)}\n`);
    return;
  }
  io.stdout(`${aggregateName} ${id} (stream ${stream})\n`);
  for (const event of events) io.stdout(`  version ${event.position}  ${event.time.toISOString()}  ${event.type}  ${event.messageId}\n`);
  io.stdout(`events history: ${events.length} ${plural(events.length, 'event')}, version ${events.length - 1}\n`);
}

async function stats(store: EventStore, io: CliIO, options: { pageSize: number; json?: boolean }): Promise<void> {
  const perCategory = new Map<string, { streams: Set<string>; events: number }>();
  let total = 0;
  let head = -1;
  const progress = progressReporter(io, 'events stats');
  for await (const page of categoryPages(store, ALL_STREAMS, options.pageSize, Number.POSITIVE_INFINITY, 'events stats')) {
    for (const event of page) {
      const category = categoryOf(event.streamName);
      const entry = perCategory.get(category) ?? { streams: new Set<string>(), events: 0 };
      entry.streams.add(event.streamName);
      entry.events += 1;
      perCategory.set(category, entry);
      head = Math.max(head, event.globalPosition);
    }
    total += page.length;
    progress(total);
  }
  const categories = [...perCategory].sort(([a], [b]) => a.localeCompare(b)).map(([category, e]) => ({ category, streams: e.streams.size, events: e.events }));
  const streams = categories.reduce((n, c) => n + c.streams, 0);
  if (options.json) {
    io.stdout(`${JSON.stringify({ streams, events: total, headPosition: head < 0 ? null : head, categories }, null, 2)}\n`);
    return;
  }
  for (const c of categories) io.stdout(`  ${c.category}  ${c.streams} ${plural(c.streams, 'stream')}  ${c.events} ${plural(c.events, 'event')}\n`);
  io.stdout(`events stats: ${streams} ${plural(streams, 'stream')}, ${total} ${plural(total, 'event')}, head position ${head < 0 ? 'none' : head}\n`);
}

/**
 * Pages of a category or `$all` in reader order, stopping after `limit` events: every event
 * committed before the command's reads first came back empty, including those a transaction open
 * on the database server holds back for a while (the command waits for them, and says so after 5 s).
 */
export async function* categoryPages(store: EventStore, category: string, pageSize: number, limit: number, command: string): AsyncGenerator<StoredEvent[]> {
  const pages = committedPages(store, [category], {
    pageSize,
    limit,
    reader: `protean-ts ${command} of ${category}`,
    logger: 'cli.events',
    hint: 'or stop the command (Ctrl-C) and run it again later',
    fields: { stream: category },
    warnAfterMs: 5_000,
  });
  for await (const page of pages) yield page.events;
}

/** Reports the running count on stderr once a read needs a second page, so short reads stay quiet. */
function progressReporter(io: CliIO, label: string): (count: number) => void {
  let pages = 0;
  let previous = 0;
  return (count) => {
    pages += 1;
    if (pages > 1 && count > previous) io.stderr(`${label}: ${count} events…\n`);
    previous = count;
  };
}

function record(event: StoredEvent): Record<string, unknown> {
  return {
    globalPosition: event.globalPosition,
    position: event.position,
    time: event.time.toISOString(),
    messageId: event.messageId,
    streamName: event.streamName,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  };
}

export function whole(flag: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number of at least ${min}, got "${value}"`, ExitCode.USAGE);
    if (n > Number.MAX_SAFE_INTEGER)
      throw new CliError(`${flag} must be a whole number of at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1), got "${value}"`, ExitCode.USAGE);
    return n;
  };
}

export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
