/**
 * `protean-ts projection rebuild <P> [--batch N]` and `protean-ts projection status`.
 *
 * rebuild: empties the projection and replays its projectors' events from the event store in
 * global order (core's rebuildProjection), with progress on stderr and a summary on stdout; the
 * server's subscriptions of its projectors wait meanwhile. A projection whose projectors follow
 * aggregates stored as rows is refused with the reason: their events were never kept.
 *
 * status: per projection and projector subscription, where it stands and whether it lags:
 * event-store subscriptions by their saved cursor against the category's events after it,
 * stream subscriptions by their consumer group's pending and undelivered entries (on every
 * partition of the stream when `outbox.partitions` > 1).
 */
import {
  DEFAULT_REBUILD_BATCH,
  ProjectionRebuildError,
  projectionNamed,
  rebuildProjection,
  whyNotRebuildable,
  START_CURSOR,
  partitionStreams,
  type Domain,
  type EventStore,
  type ProjectionState,
  type ReaderCursor,
} from '@protean-ts/core';
import { partitionCount } from '@protean-ts/server/operations';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';
import { plural, whole, withStore } from './events.js';

/** Events counted after a cursor at most; more show as `<limit>+`. */
const LAG_COUNT_LIMIT = 10_000;

export const registerProjectionCommands: CommandGroup = (program, context) => {
  const projection = program.command('projection').description('Rebuild projections and show where their projectors stand');

  projection
    .command('rebuild <projection>')
    .description("Empty a projection and replay its projectors' events from the event store, in global order (its projectors' subscriptions wait meanwhile)")
    .option('--batch <n>', 'events per read and per transaction', whole('--batch', 1), DEFAULT_REBUILD_BATCH)
    .action((name: string, options: { batch: number }) => withStore(context, (_store, domain) => rebuild(domain, context.io, name, options.batch)));

  projection
    .command('status')
    .description('Each projection: rebuild state, and per projector subscription its position and lag (ok / lagging)')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => withStore(context, (store, domain) => status(store, domain, context.io, options.json === true)));
};

async function rebuild(domain: Domain, io: CliIO, name: string, batch: number): Promise<void> {
  if (batch > 10_000) throw new CliError(`projection rebuild: --batch must be at most 10000, got ${batch}`, ExitCode.USAGE);
  try {
    // Refuse an unknown or unrebuildable projection before announcing that it is being emptied.
    const reason = whyNotRebuildable(domain, projectionNamed(domain, name));
    if (reason) throw new ProjectionRebuildError(name, reason);
    io.stderr(`projection rebuild: ${name}: emptying it and replaying its events from the event store…\n`);
    const summary = await rebuildProjection(domain, name, {
      batchSize: batch,
      onProgress: (p) =>
        io.stderr(
          `projection rebuild: ${p.projection}: ${p.read} ${plural(p.read, 'event')} read, ${p.applied} applied, ${p.skipped} skipped (global position ${p.position})\n`,
        ),
    });
    io.stdout(
      `projection rebuild: ${summary.projection} rebuilt: ${summary.applied} ${plural(summary.applied, 'event')} applied, ${summary.skipped} skipped ` +
        `(${summary.read} read from the event store) in ${summary.seconds.toFixed(1)} s\n`,
    );
  } catch (error) {
    if (error instanceof ProjectionRebuildError) throw new CliError(`projection rebuild: ${error.message}`);
    throw error;
  }
}

interface SubscriptionLine {
  projection: string;
  projector: string;
  subscription: string;
  source: 'stream' | 'event_store';
  /** Event store: the cursor's global position; stream: null (brokers number entries their own way). */
  position: number | null;
  /** Events or entries not handled yet; a string when counting stopped (`10000+`) or the broker cannot tell. */
  lag: number | string;
  /** `unknown` when the broker cannot count a group's undelivered entries. */
  state: 'ok' | 'lagging' | 'rebuilding' | 'unknown';
}

async function status(store: EventStore, domain: Domain, io: CliIO, json: boolean): Promise<void> {
  const { registry, config } = domain;
  const cursors = new Map((await store.subscriptions.states()).map((s) => [s.subscription, s.cursor]));
  const projections: { projection: string; state: ProjectionState | null; subscriptions: SubscriptionLine[] }[] = [];
  for (const record of registry.recordsOf('projection')) {
    const state = await domain.runtime.infrastructure.provider(record.options.provider).projections.state(record.name);
    const lines: SubscriptionLine[] = [];
    for (const projector of registry.projectorsOf(record.cls)) {
      const source = projector.options.subscriptionType ?? config.server.default_subscription_type;
      for (const { name, category } of registry.projectorSubscriptions(projector.cls)) {
        // A rebuild applied everything up to where it stopped, whatever the subscription's cursor says.
        const where =
          source === 'event_store'
            ? await eventStoreLag(store, category, laterOf(cursors.get(name), state?.rebuiltThrough ?? undefined))
            : await streamLag(domain, category, name);
        const health = typeof where.lag === 'number' ? (where.lag > 0 ? 'lagging' : 'ok') : where.lag.startsWith('unknown') ? 'unknown' : 'lagging';
        lines.push({
          projection: record.name,
          projector: projector.name,
          subscription: name,
          source,
          ...where,
          state: state?.rebuilding ? 'rebuilding' : health,
        });
      }
    }
    projections.push({ projection: record.name, state, subscriptions: lines });
  }
  if (json) {
    io.stdout(`${JSON.stringify(projections, null, 2)}\n`);
    return;
  }
  if (projections.length === 0) {
    io.stdout(`projection status: domain ${domain.name} has no projections\n`);
    return;
  }
  const rows = projections.flatMap((p) =>
    p.subscriptions.map((s) => [s.projection, s.subscription, s.source, s.position === null ? '-' : String(s.position), String(s.lag), s.state]),
  );
  const header = ['PROJECTION', 'SUBSCRIPTION', 'SOURCE', 'POSITION', 'LAG', 'STATE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows])
    io.stdout(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  for (const p of projections) {
    if (p.state?.rebuilding)
      io.stdout(
        `${p.projection}: being rebuilt since ${p.state.rebuildStartedAt?.toISOString()}; its projectors wait (an interrupted rebuild is finished by running it again)\n`,
      );
    else if (p.state?.rebuiltAt) io.stdout(`${p.projection}: last rebuilt ${p.state.rebuiltAt.toISOString()} (${p.state.eventsApplied} events applied)\n`);
  }
}

function laterOf(a: ReaderCursor | undefined, b: ReaderCursor | undefined): ReaderCursor | undefined {
  if (!a || !b) return a ?? b;
  return a.transactionId > b.transactionId || (a.transactionId === b.transactionId && a.globalPosition >= b.globalPosition) ? a : b;
}

/** Events of the category after the subscription's saved cursor, counted up to LAG_COUNT_LIMIT. */
async function eventStoreLag(store: EventStore, category: string, cursor: ReaderCursor | undefined): Promise<Pick<SubscriptionLine, 'position' | 'lag'>> {
  let after = cursor ?? START_CURSOR;
  let lag = 0;
  while (lag < LAG_COUNT_LIMIT) {
    const page = await store.readCategory(category, { after, limit: Math.min(1000, LAG_COUNT_LIMIT - lag) });
    if (page.events.length === 0) return { position: cursor?.globalPosition ?? 0, lag };
    lag += page.events.length;
    after = page.cursor;
  }
  return { position: cursor?.globalPosition ?? 0, lag: `${LAG_COUNT_LIMIT}+` };
}

/** The consumer group's entries not acked (pending) or not delivered (lag) on the category's stream, summed over its partitions. */
async function streamLag(domain: Domain, category: string, group: string): Promise<Pick<SubscriptionLine, 'position' | 'lag'>> {
  const broker = domain.brokers.get(domain.config.outbox.broker);
  if (!broker) return { position: null, lag: 'unknown (no broker)' };
  const streams = partitionStreams(category, partitionCount(domain, { source: 'stream', broker: domain.config.outbox.broker }));
  const parts = await Promise.all(streams.map((stream) => broker.groupStatus(stream, group)));
  const found = {
    exists: parts.every((p) => p.exists),
    pending: parts.reduce((n, p) => n + p.pending, 0),
    lag: parts.some((p) => p.lag === null) ? null : parts.reduce((n, p) => n + p.lag!, 0),
    pendingLocalOnly: parts.some((p) => p.pendingLocalOnly),
  };
  // Without its group the stream's entries cannot be told read from unread.
  if (!found.exists) return { position: null, lag: 'unknown (no consumer group yet: the server has not subscribed)' };
  if (found.lag === null) return { position: null, lag: found.pending === 0 ? 'unknown' : `${found.pending} pending` };
  // The broker shows this process only its own unacked entries (RabbitMQ without management_uri).
  if (found.pendingLocalOnly)
    return { position: null, lag: `${found.lag} undelivered, pending unknown (set brokers.${domain.config.outbox.broker}.management_uri)` };
  return { position: null, lag: found.pending + found.lag };
}
