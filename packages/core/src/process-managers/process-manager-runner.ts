/**
 * Delivers one event to a process manager, inside the unit of work the caller opened (a
 * subscription's, or the sync dispatcher's): finds the instance by the event's correlation value,
 * runs the handler on it, and stores the new state, the commands it sent and the timeouts it
 * scheduled in one transaction.
 *
 * State is an event-sourced stream of transitions in the event store (`<stateCategory>-<value>`),
 * one entry per handled event carrying the whole state after it. Appending with the version it
 * was loaded at makes a concurrent change of the same instance a version conflict, which reruns
 * the unit of work (retryOnConflict) on the newer state: no update is lost. The outbox rows go to
 * the event store's database, so they commit with the transition. The last committed transition
 * of an instance this process handled is kept (TransitionCache), so the next one need not read.
 */
import type { BaseCommand } from '../elements/base-command.js';
import { BaseEvent } from '../elements/base-event.js';
import { PROCESS_MANAGER_SESSION, type ProcessManagerSession } from '../elements/base-process-manager.js';
import type { MessageContext } from '../elements/element-host.js';
import { handleMarksOf, type HandleMark } from '../elements/handle.js';
import { buildMessageMetadata, withMetadata } from '../elements/message-metadata.js';
import type { OutboxConfig } from '../config/config-types.js';
import type { ProcessManagerRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';
import { ProcessManagerUsageError } from '../errors/process-manager-usage.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import { newMessageId } from '../messages/message-id.js';
import { serializeMessage } from '../messages/serialize-message.js';
import { stampCommand } from '../elements/stamp-command.js';
import type { DatabaseProvider, ProviderTransaction } from '../ports/database-provider.js';
import type { EventStore } from '../ports/event-store.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { commandOutboxRow, deferredPartitionKey } from '../processing/command-outbox-row.js';
import type { TransitionCache } from './transition-cache.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { correlationOf } from './correlation.js';
import { parseDuration } from './parse-duration.js';
import { checkedDate } from '../processing/checked-date.js';
import type { Clock } from '../ports/clock.js';

export interface ProcessManagerHost {
  readonly domainName: string;
  readonly registry: ElementRegistry;
  readonly outboxEnabled: boolean;
  readonly outboxConfig: OutboxConfig;
  /** `event_processing`: timeouts come back through subscriptions, which only run when async. */
  readonly eventProcessing: 'sync' | 'async';
  /** The domain's clock: a timeout `after` a duration falls due that long after its now. */
  readonly clock: Clock;
  /** The event store keeping the transition streams, and the name of its database. */
  stateStore(): { store: EventStore; provider: string };
  /** The last committed transitions this process knows of. */
  readonly transitions: TransitionCache;
  provider(name: string): DatabaseProvider;
  activeUnitOfWork(): UnitOfWork | undefined;
  messageContext(): MessageContext | undefined;
}

/** What one transition entry of a manager's stream holds. */
export interface ProcessManagerTransition {
  /** The manager's fields after the handler ran. */
  state: Record<string, unknown>;
  completed: boolean;
  /** The event that caused it. */
  event: { type: string; id: string | null };
}

export type ProcessManagerOutcome = 'handled' | 'started' | 'completed' | 'no-instance' | 'already-completed';

/** The stream of one instance, and the prefix of its timeouts' partition keys. */
export function processManagerStream(record: ProcessManagerRecord, correlationValue: string): string {
  return `${record.options.stateCategory}-${correlationValue}`;
}

export function timeoutKeyPrefix(stream: string): string {
  return `${stream}/timeout/`;
}

export async function runProcessManager(host: ProcessManagerHost, cls: ClassRef, method: string, event: unknown): Promise<ProcessManagerOutcome> {
  const record = host.registry.requireRecord(cls, 'processManager');
  const mark = markFor(cls, method, event);
  const correlation = correlationOf(mark.options?.correlate);
  if (!correlation) throw new ProcessManagerUsageError(`${record.name}.${method}: @handle needs correlate (domain.init() checks this; was the model checked?)`);
  const raw = (event as Record<string, unknown>)[correlation.eventField];
  if (raw === undefined || raw === null || raw === '') {
    throw new ProcessManagerUsageError(
      `${record.name}.${method}: the ${event?.constructor?.name} has no value in "${correlation.eventField}", the field that identifies the ${record.name} it belongs to`,
    );
  }
  const value = String(raw);
  const stream = processManagerStream(record, value);
  const uow = host.activeUnitOfWork();
  if (!uow)
    throw new ProcessManagerUsageError(
      `${record.name}.${method}: process managers run inside a unit of work (deliver events with domain.handleMessage or after a commit)`,
    );
  const { store, provider } = host.stateStore();
  const tx = await uow.transactionFor(provider);

  // One read at most: the last transition is the state, and its position the version to append after.
  const { version, previous } = await lastTransition(host, store, stream, tx);
  if (!previous && mark.options?.start !== true) return 'no-instance';
  if (previous?.completed) return 'already-completed';

  const instance = new cls() as Record<string | symbol, unknown>;
  if (previous) Object.assign(instance, previous.state);
  else instance[correlation.managerField] = value;

  const rows: NewOutboxRow[] = [];
  let completed = mark.options?.end === true;
  const session: ProcessManagerSession = {
    send: (command, options) => rows.push(sentCommandRow(host, record, command, options?.deliverAt)),
    scheduleTimeout: (timeout, options) => rows.push(timeoutRow(host, record, stream, timeout, options)),
    markAsComplete: () => {
      completed = true;
    },
  };
  Object.defineProperty(instance, PROCESS_MANAGER_SESSION, { value: session, enumerable: false, configurable: true });
  try {
    const fn = instance[method];
    if (typeof fn !== 'function') throw new TypeError(`${record.name}.${method} is not a method; @handle must decorate a method`);
    await (fn as (message: unknown) => unknown).call(instance, event);
  } finally {
    delete instance[PROCESS_MANAGER_SESSION];
  }

  const metadata = (event as BaseEvent)._metadata;
  const transition: ProcessManagerTransition = {
    state: plainState(record.name, instance),
    completed,
    event: { type: metadata?.headers.type ?? String(event?.constructor?.name), id: metadata?.headers.id ?? null },
  };
  const json = JSON.stringify(transition);
  const appended = await appendOrForget(host, stream, () =>
    store.append(
      tx,
      stream,
      [
        {
          messageId: newMessageId(),
          type: `${host.domainName}.${record.name}.Transitioned.v1`,
          data: transition as unknown as Record<string, unknown>,
          metadata: { correlationId: metadata?.domain.correlationId ?? null, causationId: metadata?.headers.id ?? null },
        },
      ],
      { expectedVersion: version },
    ),
  );
  uow.whenCommitted(() => (completed ? host.transitions.delete(stream) : host.transitions.set(stream, { position: appended.version, json })));
  const outbox = host.provider(provider).outbox;
  if (rows.length) await outbox.append(tx, rows);
  // A finished process has nothing left to wait for: its timeouts not yet due are dropped with
  // the transition that completes it (one already due may still arrive; a completed manager ignores it).
  if (completed && host.outboxEnabled) await outbox.cancelScheduled(tx, timeoutKeyPrefix(stream));
  return completed ? 'completed' : previous ? 'handled' : 'started';
}

async function lastTransition(
  host: ProcessManagerHost,
  store: EventStore,
  stream: string,
  tx: ProviderTransaction,
): Promise<{ version: number; previous: ProcessManagerTransition | undefined }> {
  const cached = host.transitions.get(stream);
  if (cached) return { version: cached.position, previous: JSON.parse(cached.json) as ProcessManagerTransition };
  const last = await store.lastEvent(stream, tx);
  return { version: last ? last.position : -1, previous: last?.data as unknown as ProcessManagerTransition | undefined };
}

/** A failed append (a version conflict, above all: the kept transition was not the last) drops what is kept of the stream. */
async function appendOrForget<R>(host: ProcessManagerHost, stream: string, append: () => Promise<R>): Promise<R> {
  try {
    return await append();
  } catch (error) {
    host.transitions.delete(stream);
    throw error;
  }
}

function markFor(cls: ClassRef, method: string, event: unknown): HandleMark {
  const marks = handleMarksOf(cls).filter((m) => m.method === method);
  return marks.find((m) => event instanceof m.message) ?? marks[0] ?? { message: Object, method };
}

/** The manager's own enumerable fields, as JSON data (what is stored is what the next event sees). */
function plainState(manager: string, instance: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify({ ...instance })) as Record<string, unknown>;
  } catch (error) {
    throw new ProcessManagerUsageError(`${manager}: its fields must be plain JSON data to be stored (${(error as Error).message})`);
  }
}

function requireOutbox(host: ProcessManagerHost, record: ProcessManagerRecord, what: string): void {
  if (!host.outboxEnabled) {
    throw new ProcessManagerUsageError(
      `${record.name}.${what}() needs the outbox, which carries its messages with the state change; set enable_outbox = true in domain.toml (the default)`,
    );
  }
}

function sentCommandRow(host: ProcessManagerHost, record: ProcessManagerRecord, command: BaseCommand, deliverAt: Date | undefined): NewOutboxRow {
  requireOutbox(host, record, 'send');
  const stamped = stampCommand(host.registry, command, host.messageContext());
  const row = commandOutboxRow(serializeMessage(stamped), host.outboxConfig);
  return deliverAt === undefined
    ? row
    : { ...row, partitionKey: deferredPartitionKey(row), deliverAt: checkedDate(deliverAt, `${record.name}.send(): deliverAt`) };
}

function timeoutRow(
  host: ProcessManagerHost,
  record: ProcessManagerRecord,
  stream: string,
  timeout: BaseEvent,
  options: { after: number | string } | { at: Date },
): NewOutboxRow {
  requireOutbox(host, record, 'scheduleTimeout');
  if (!(timeout instanceof BaseEvent)) {
    throw new ProcessManagerUsageError(
      `${record.name}.scheduleTimeout() takes an event built with .create(), got ${timeout === null ? 'null' : typeof timeout}`,
    );
  }
  if (host.eventProcessing !== 'async') {
    throw new ProcessManagerUsageError(
      `${record.name}.scheduleTimeout(): timeouts come back through the server's subscriptions, which deliver events only with event_processing = "async"; set it in domain.toml`,
    );
  }
  const cls = timeout.constructor as ClassRef;
  const info = host.registry.messageInfo(cls);
  const categories = host.registry.processManagerCategories(record.cls);
  if (info.kind !== 'EVENT' || !info.streamCategory || !categories.includes(info.streamCategory)) {
    throw new ProcessManagerUsageError(
      `${record.name}.scheduleTimeout(${cls.name}): ${cls.name} must be an event on a category ${record.name} follows (${categories.join(', ')}), or it would never come back; declare it @domain.event({ partOf: <one of its aggregates> })`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new ProcessManagerUsageError(`${record.name}.scheduleTimeout(${cls.name}) needs { after: '15m' } (ms or '500ms'/'30s'/'15m'/'2h') or { at: <Date> }`);
  }
  const due =
    'at' in options
      ? checkedDate(options.at, `${record.name}.scheduleTimeout(): at`)
      : new Date(host.clock.now() + parseDuration(options?.after, `${record.name}.scheduleTimeout(): after`));
  const id = newMessageId();
  const key = `${timeoutKeyPrefix(stream)}${id}`;
  const metadata = buildMessageMetadata({ info, streamCategory: info.streamCategory, stream: key, context: host.messageContext() });
  metadata.headers.id = id;
  const envelope = serializeMessage(withMetadata(timeout, metadata));
  return {
    messageId: id,
    streamName: info.streamCategory,
    partitionKey: key,
    messageType: info.type,
    envelope,
    targetBroker: host.outboxConfig.broker,
    maxRetries: host.outboxConfig.retry.max_attempts,
    correlationId: metadata.domain.correlationId ?? null,
    causationId: metadata.domain.causationId ?? null,
    deliverAt: due,
  };
}
