/**
 * `protean-ts projection rebuild <P>`: empties a projection and replays its projectors' events
 * from the event store, in global (reader) order, `batchSize` events per unit of work. It reads
 * only the categories its projectors follow, never the rest of the store.
 *
 * 1. Marks the projection as being rebuilt (its status row, projection-status-store.ts): the mark
 *    waits for projector transactions in flight, and the projector subscriptions of the server
 *    wait from then on. Other handlers and projectors keep running.
 * 2. Empties the projection's tables and forgets its projectors' inbox records.
 * 3. Replays every event of the followed categories committed before its reads first come back
 *    empty, waiting while such events are held back by a transaction still open (committed-pages.ts):
 *    each event of a followed category is entered in the projector subscription's inbox
 *    at its stream position (as the event-store subscription does) and applied, in the same
 *    transaction. When the mark is lifted, the subscriptions resume: the inbox reports what the
 *    rebuild applied as duplicates, so nothing is applied twice, and they go on after it.
 * 4. Lifts the mark. An interrupted rebuild leaves it set (the projection is incomplete, so its
 *    projectors keep waiting); running the rebuild again finishes the job.
 */
import type { DomainConfig } from '../config/config-types.js';
import type { MessageTypeLookup } from '../messages/deserialize-message.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { InboxEntry, InboxStore, InboxVerdict } from '../ports/inbox-store.js';
import type { ElementRegistry } from '../registry/registry.js';
import type { ProjectionRecord, ProjectorRecord } from '../registry/element-record.js';
import type { ClassRef } from '../fields/field-definition.js';
import { deserializeMessage } from '../messages/deserialize-message.js';
import { envelopeOf } from '../repository/aggregate-stream.js';
import { eventStoreInboxName } from '../ports/inbox-store.js';
import { START_CURSOR, type ReaderCursor, type StoredEvent } from '../ports/event-store-records.js';
import { categoryOf } from '../ports/stream-names.js';
import { ProjectionRebuildError } from '../errors/projection-rebuild.error.js';
import { UpcasterFailedError } from '../errors/upcaster-failed.error.js';
import { invokeHandler } from './handler-invocation.js';
import { committedPages } from './committed-pages.js';

export interface RebuildProgress {
  projection: string;
  /** Events of the followed categories read so far: `applied` + `skipped`. */
  read: number;
  applied: number;
  skipped: number;
  /** Global position of the last event read. */
  position: number;
}

export interface RebuildSummary extends RebuildProgress {
  seconds: number;
}

export interface RebuildOptions {
  /** Events per read and per unit of work; default 500. */
  batchSize?: number;
  /** Called after each batch commits. */
  onProgress?: (progress: RebuildProgress) => void;
}

export const DEFAULT_REBUILD_BATCH = 500;

/** One projector subscription's share of the replay: its category, inbox and methods by message type. */
interface ReplayTarget {
  projector: ProjectorRecord;
  category: string;
  inbox: string;
  methods: Map<string, string[]>;
  /** Handled message types without their version. */
  handles: Set<string>;
}

const VERSION_SUFFIX = /\.v\d+$/;

/** The projection registered under `name` (a class name), refused by name when there is none. */
export function projectionNamed(domain: RebuildableDomain, name: string): ProjectionRecord {
  const projections = domain.registry.recordsOf('projection');
  const found = projections.find((record) => record.name === name);
  if (!found) {
    const known = projections.map((record) => record.name).join(', ') || 'none';
    throw new ProjectionRebuildError(name, `domain ${domain.name} has no projection named "${name}" (projections: ${known})`);
  }
  return found;
}

/** Why the projection's events cannot be replayed from the event store; undefined when they can. */
export function whyNotRebuildable(domain: RebuildableDomain, projection: ProjectionRecord): string | undefined {
  const { registry } = domain;
  const projectors = registry.projectorsOf(projection.cls);
  if (projectors.length === 0) return `no projector writes it (declare @domain.projector({ projectorFor: ${projection.name}, ... }))`;
  for (const projector of projectors) {
    for (const category of registry.projectorCategories(projector.cls)) {
      if (registry.eventSourcedAggregateOf(category)) continue;
      const writer = registry.recordsOf('aggregate').find((record) => record.options.streamCategory === category);
      const why = writer
        ? `aggregate ${writer.name} is not event-sourced: its events went through the outbox to brokers and were not kept`
        : 'no event-sourced aggregate of this domain writes it';
      return `${projector.name} follows "${category}", whose events are not in the event store (${why}); make the aggregate eventSourced to rebuild from its events, or repopulate ${projection.name} another way`;
    }
  }
  return undefined;
}

/** The part of a Domain a rebuild uses (a Domain satisfies it): its model, configuration and runtime parts. */
export interface RebuildableDomain extends MessageTypeLookup {
  readonly registry: ElementRegistry;
  readonly config: DomainConfig;
  aggregateSchemaFor(aggregate: ClassRef): AggregateSchema;
  readonly runtime: {
    readonly infrastructure: { provider(name: string): DatabaseProvider };
    readonly messages: { readonly inbox: InboxStore | null; enterInbox(entry: InboxEntry): Promise<InboxVerdict> };
    readonly units: { fresh<R>(work: () => Promise<R> | R): Promise<R> };
  };
}

export async function rebuildProjection(domain: RebuildableDomain, projection: ClassRef | string, options: RebuildOptions = {}): Promise<RebuildSummary> {
  const started = Date.now();
  const record = typeof projection === 'string' ? projectionNamed(domain, projection) : projectionNamed(domain, projection.name);
  const batchSize = options.batchSize ?? DEFAULT_REBUILD_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new ProjectionRebuildError(record.name, `--batch must be an integer from 1 to 10000, got ${String(options.batchSize)}`);
  const reason = whyNotRebuildable(domain, record);
  if (reason) throw new ProjectionRebuildError(record.name, reason);

  const runtime = domain.runtime;
  // Without an inbox the server's subscriptions could not tell replayed events from new ones.
  if (domain.config.event_processing === 'async' && runtime.messages.inbox === null) {
    throw new ProjectionRebuildError(
      record.name,
      "the inbox is off ([inbox] enabled = false), so the server's projector subscriptions could not tell the events the rebuild applies from new ones and would apply them again; turn the inbox on",
    );
  }
  const targets = replayTargets(domain, record);
  const status = runtime.infrastructure.provider(record.options.provider).projections;
  const store = runtime.infrastructure.provider(domain.config.event_store.database).eventStore;
  const inbox = runtime.messages.inbox;

  await status.markRebuilding(record.name);
  await status.truncate(domain.aggregateSchemaFor(record.cls as never));
  for (const target of targets) await inbox?.forget(target.inbox);

  // One read of all followed categories, not a read per category merged here: the store reads
  // them in one go (one horizon of ended transactions on PostgreSQL), so events of different
  // categories come in the reader order a single reader sees, as `$all` gave them before.
  const categories = [...new Set(targets.map((target) => target.category))];
  const progress: RebuildProgress = { projection: record.name, read: 0, applied: 0, skipped: 0, position: 0 };
  let cursor: ReaderCursor = START_CURSOR;
  const pages = committedPages(store, categories, {
    pageSize: batchSize,
    reader: `the rebuild of projection ${record.name}`,
    logger: 'projection.rebuild',
    hint: 'or stop the rebuild and run it again later (the projection stays marked as being rebuilt)',
    fields: { projection: record.name },
  });
  for await (const page of pages) {
    const counted = await runtime.units.fresh(() => replayBatch(domain, targets, page.events, inbox !== null));
    progress.read += page.events.length;
    progress.applied += counted.applied;
    progress.skipped += counted.skipped;
    progress.position = page.events[page.events.length - 1]!.globalPosition;
    cursor = page.cursor;
    options.onProgress?.({ ...progress });
  }
  await status.markRebuilt(record.name, progress.applied, cursor);
  return { ...progress, seconds: (Date.now() - started) / 1000 };
}

function replayTargets(domain: RebuildableDomain, projection: ProjectionRecord): ReplayTarget[] {
  const { registry, config } = domain;
  return registry.projectorsOf(projection.cls).flatMap((projector) => {
    const source = projector.options.subscriptionType ?? config.server.default_subscription_type;
    const methods = registry.handlerMethodsOf(projector.cls);
    return registry.projectorSubscriptions(projector.cls).map(({ name, category }) => ({
      projector,
      category,
      inbox: source === 'event_store' ? eventStoreInboxName(name) : name,
      methods,
      handles: new Set([...methods.keys()].map((type) => type.replace(VERSION_SUFFIX, ''))),
    }));
  });
}

/**
 * Applies one page of events in the active unit of work, through each target's inbox. Counts
 * events, not applications: an event is applied when one of the projection's projectors applied
 * it (several may follow its category), skipped otherwise, so applied + skipped = read.
 */
async function replayBatch(
  domain: RebuildableDomain,
  targets: readonly ReplayTarget[],
  events: readonly StoredEvent[],
  useInbox: boolean,
): Promise<{ applied: number; skipped: number }> {
  let applied = 0;
  for (const event of events) {
    if (await replayEvent(domain, targets, event, useInbox)) applied += 1;
  }
  return { applied, skipped: events.length - applied };
}

/** True when one of the targets applied `event`. */
async function replayEvent(domain: RebuildableDomain, targets: readonly ReplayTarget[], event: StoredEvent, useInbox: boolean): Promise<boolean> {
  const category = categoryOf(event.streamName);
  let applied = false;
  for (const target of targets) {
    if (target.category !== category) continue;
    // Matched without the version, so an older stored version is upcast on the way (as subscriptions do).
    const handled = target.handles.has(event.type.replace(VERSION_SUFFIX, ''));
    const message = handled ? storedMessage(domain, event) : undefined;
    const methods = message ? (target.methods.get(message._metadata?.headers.type ?? event.type) ?? []) : [];
    // Recorded even when not applied, so the key's next event is next for the subscription too.
    const verdict = useInbox
      ? await domain.runtime.messages.enterInbox({
          subscription: target.inbox,
          position: { key: event.streamName, sequence: event.position + 1 },
          messageId: event.messageId,
          brokerMessageId: `rebuild:${event.globalPosition}`,
        })
      : { kind: 'next' as const };
    if (methods.length === 0 || (verdict.kind !== 'next' && verdict.kind !== 'late')) continue;
    for (const method of methods) await invokeHandler(target.projector.cls, method, message);
    applied = true;
  }
  return applied;
}

/** The stored event as its registered class; an upcaster's failure names the event's stream and position. */
function storedMessage(domain: RebuildableDomain, event: StoredEvent): { _metadata?: { headers: { type: string } } } {
  try {
    return deserializeMessage(domain, envelopeOf(event), { requireChecksum: true });
  } catch (error) {
    throw error instanceof UpcasterFailedError ? error.at(event.streamName, event.position) : error;
  }
}
