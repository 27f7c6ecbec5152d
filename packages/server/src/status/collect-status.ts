/**
 * Reads the status of a domain's messaging straight from its databases and brokers (no server
 * API), so it describes whatever servers are running, or none: each managed database's outbox,
 * each broker subscription's consumer group (lag, pending, consumers, dead letters; summed over
 * the partitions of its stream when `outbox.partitions` > 1) and each event-store subscription's cursor. A source that cannot be read is reported with its error
 * instead of failing the whole status. The CLI's `status` command and dashboards share this.
 */
import {
  maskText,
  maskUri,
  type Broker,
  type DatabaseProvider,
  type DeadLetter,
  type Domain,
  type EventStore,
  type GroupProgress,
  type GroupStatus,
} from '@protean-ts/core';
import { plannedStreams, planSubscriptions, type PlannedSubscription } from '../subscriptions/subscription-plan.js';
import { eventsBehind } from './events-behind.js';
import { collectProcessManagers } from './process-manager-report.js';
import { collectRelayPressure } from './relay-pressure.js';
import { optionalLimits } from '../subscriptions/flow/flow-gates.js';
import type { EventStoreSubscriptionBacklog, OutboxReport, StreamSubscriptionBacklog, SubscriptionBacklog, SystemStatus } from './system-status.js';

/** Dead letters read per stream to count them; a DLQ waits for an operator, so it stays far below this. */
const DEAD_LETTER_READ_LIMIT = 100_000;

export interface CollectStatusOptions {
  /** Events counted behind an event-store subscription's cursor before reporting "at least" (default 10,000). */
  maxBehind?: number;
  /** A process manager's transitions read to count its instances; beyond it they are not counted (default 100,000). */
  maxTransitions?: number;
}

export const DEFAULT_MAX_TRANSITIONS = 100_000;

export const DEFAULT_MAX_BEHIND = 10_000;

export async function collectStatus(domain: Domain, options: CollectStatusOptions = {}): Promise<SystemStatus> {
  const takenAt = new Date().toISOString();
  const plan = planSubscriptions(domain);
  const [outboxes, streamBacklogs, storeBacklogs, processManagers, relays] = await Promise.all([
    collectOutboxes(domain),
    collectStreamBacklogs(
      domain,
      plan.filter((p) => p.source === 'stream'),
    ),
    collectEventStoreBacklogs(
      domain,
      plan.filter((p) => p.source === 'event_store'),
      options.maxBehind ?? DEFAULT_MAX_BEHIND,
    ),
    collectProcessManagers(domain, options.maxTransitions ?? DEFAULT_MAX_TRANSITIONS, problem),
    collectRelayPressure(domain, plan, problem),
  ]);
  await addOpenCircuits(domain, streamBacklogs);
  const subscriptions: SubscriptionBacklog[] = [...streamBacklogs, ...storeBacklogs];
  return { takenAt, outboxes, subscriptions, processManagers, ...(relays ? { relays } : {}) };
}

/** Circuits the workers recorded as not closed, onto their subscriptions; a failed read is left out (it is only a hint). */
async function addOpenCircuits(domain: Domain, backlogs: StreamSubscriptionBacklog[]): Promise<void> {
  const limits = optionalLimits(domain);
  if (!limits || Object.keys(domain.config.server.flow_control).length === 0) return;
  const recorded = await limits.openCircuits(`${domain.name}:`).catch(() => []);
  for (const circuit of recorded) {
    const backlog = backlogs.find((b) => `${domain.name}:${b.subscription}` === circuit.scope);
    if (!backlog || circuit.state === 'closed') continue;
    (backlog.circuits ??= []).push({
      worker: circuit.worker,
      state: circuit.state,
      opened: circuit.opened,
      lastError: circuit.lastError,
      changedAt: circuit.changedAt,
    });
  }
}

/** The managed databases, each with a label safe to print (the URI's secrets masked). */
export function managedDatabases(domain: Domain): { name: string; label: string; provider: DatabaseProvider }[] {
  return [...domain.providers]
    .filter(([, provider]) => provider.managed)
    .map(([name, provider]) => {
      const uri = domain.config.databases[name]?.database_uri;
      return { name, provider, label: `${provider.kind}${uri ? ` (${maskUri(uri)})` : ''}` };
    });
}

async function collectOutboxes(domain: Domain): Promise<OutboxReport[]> {
  return Promise.all(
    managedDatabases(domain).map(async ({ name, label, provider }): Promise<OutboxReport> => {
      try {
        return { database: name, label, ...(await provider.outbox.counts()) };
      } catch (err) {
        return { database: name, label, error: problem(err) };
      }
    }),
  );
}

async function collectStreamBacklogs(domain: Domain, planned: readonly PlannedSubscription[]): Promise<StreamSubscriptionBacklog[]> {
  // Dead letters live per stream (all groups together): read each stream's once.
  const letters = new Map<string, Promise<DeadLetter[] | null>>();
  const lettersOf = (broker: Broker, stream: string) => {
    const key = `${broker.name}\u0000${stream}`;
    if (!letters.has(key))
      letters.set(key, broker.has('DEAD_LETTER_QUEUE') ? broker.listDeadLetters(stream, { count: DEAD_LETTER_READ_LIMIT }) : Promise.resolve(null));
    return letters.get(key)!;
  };
  return Promise.all(
    planned.map(async (entry): Promise<StreamSubscriptionBacklog> => {
      const streams = plannedStreams(domain, entry);
      const base = {
        source: 'stream' as const,
        subscription: entry.group,
        role: entry.role,
        handler: entry.cls.name,
        broker: entry.broker,
        stream: entry.stream,
        ...(streams.length > 1 ? { partitions: streams.length } : {}),
      };
      const empty = { exists: false, lag: null, pending: 0, consumers: null, deadLetters: null, lostToTrimming: 0 };
      try {
        const broker = domain.runtime.infrastructure.broker(entry.broker);
        const parts = await Promise.all(
          streams.map((stream) => Promise.all([broker.groupStatus(stream, entry.group), broker.groupProgress(stream, entry.group), lettersOf(broker, stream)])),
        );
        return { ...base, ...sumPartitions(entry.group, parts) };
      } catch (err) {
        return { ...base, ...empty, error: problem(err) };
      }
    }),
  );
}

type PartitionReading = [GroupStatus, GroupProgress, DeadLetter[] | null];

/**
 * One backlog from the group's partitions: counts add up, the group exists when it exists on
 * every partition (a partition no server has read yet hides its messages), and a number one
 * partition cannot tell makes the sum unknown.
 */
function sumPartitions(
  group: string,
  parts: readonly PartitionReading[],
): Pick<StreamSubscriptionBacklog, 'exists' | 'lag' | 'pending' | 'pendingLocalOnly' | 'consumers' | 'deadLetters' | 'lostToTrimming'> {
  const total = (values: (number | null)[]) => (values.some((v) => v === null) ? null : values.reduce<number>((n, v) => n + v!, 0));
  const localOnly = parts.some(([status]) => status.pendingLocalOnly);
  return {
    exists: parts.every(([status]) => status.exists),
    lag: total(parts.map(([status]) => status.lag)),
    pending: total(parts.map(([status]) => status.pending))!,
    ...(localOnly ? { pendingLocalOnly: true as const } : {}),
    consumers: total(parts.map(([, progress]) => progress.consumers)),
    deadLetters: total(parts.map(([, , dead]) => (dead === null ? null : dead.filter((l) => l.group === group).length))),
    lostToTrimming: total(parts.map(([status]) => status.lostToTrimming ?? 0))!,
  };
}

/** The event store the domain's event-store subscriptions read (`event_store.database`). */
export function eventStoreOf(domain: Domain): EventStore {
  const database = domain.config.event_store.database;
  const provider = domain.providers.get(database);
  if (!provider) throw new Error(`event_store.database "${database}" has no [databases.${database}] in domain.toml`);
  return provider.eventStore;
}

async function collectEventStoreBacklogs(domain: Domain, planned: readonly PlannedSubscription[], maxBehind: number): Promise<EventStoreSubscriptionBacklog[]> {
  if (planned.length === 0) return [];
  const base = (entry: PlannedSubscription) => ({
    source: 'event_store' as const,
    subscription: entry.group,
    role: entry.role,
    handler: entry.cls.name,
    category: entry.stream,
  });
  let store: EventStore;
  let states: Awaited<ReturnType<EventStore['subscriptions']['states']>>;
  try {
    store = eventStoreOf(domain);
    states = await store.subscriptions.states();
  } catch (err) {
    const error = problem(err);
    return planned.map((entry) => ({
      ...base(entry),
      behind: 0,
      behindCapped: false,
      deadLetters: 0,
      cursor: { transactionId: 0, globalPosition: 0 },
      owner: null,
      leaseExpiresAt: null,
      error,
    }));
  }
  return Promise.all(
    planned.map(async (entry): Promise<EventStoreSubscriptionBacklog> => {
      const state = states.find((s) => s.subscription === entry.group);
      const cursor = state?.cursor ?? { transactionId: 0, globalPosition: 0 };
      const known = {
        ...base(entry),
        deadLetters: state?.deadLetters ?? 0,
        cursor,
        owner: state?.owner ?? null,
        leaseExpiresAt: state?.leaseExpiresAt?.toISOString() ?? null,
      };
      try {
        const behind = await eventsBehind(store, entry.stream, cursor, maxBehind);
        return { ...known, behind: behind.count, behindCapped: behind.capped };
      } catch (err) {
        return { ...known, behind: 0, behindCapped: false, error: problem(err) };
      }
    }),
  );
}

/** The first line of an error, which is what a status table has room for, with any secret in it masked. */
export function problem(err: unknown): string {
  return maskText((err instanceof Error ? err.message : String(err)).split('\n')[0]!);
}
