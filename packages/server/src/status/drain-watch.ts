/**
 * `status --wait-drained`: has everything committed before the call been handled? In two steps,
 * so a stream of new work arriving meanwhile never keeps it waiting:
 *
 * 1. Outbox. At the start, the ids of every open outbox row (pending, processing, failed) of each
 *    managed database are noted; this step is done when none of them is open any more (published,
 *    or abandoned: an abandoned row waits for an operator, not for time, and is reported).
 * 2. Subscriptions. Once the outbox step is done, each subscription's stream head is marked (for
 *    a broker stream the id of its newest entry, for an event-store subscription the position of
 *    its category's newest event); a subscription is done when its group has delivered and acked
 *    every entry up to that mark (a broker that cannot compare ids: when nothing is undelivered or
 *    unacked at all), or its event-store cursor has reached the mark. A partitioned stream
 *    (`outbox.partitions` > 1) gets one mark per partition, and is done when every partition is.
 *    A dead-lettered message counts as handled: it left the queue (see `dlq list`).
 *
 * Work the handlers cause (their own outbox rows) is not waited for; wait again for the next hop.
 */
import type { Domain, ReaderCursor } from '@protean-ts/core';
import { partitionCount, plannedStreams, planSubscriptions, type PlannedSubscription } from '../subscriptions/subscription-plan.js';
import { eventStoreOf, managedDatabases, problem } from './collect-status.js';
import { cursorAtOrAfter, eventsBehind } from './events-behind.js';
import { OpenOutboxRows } from './open-outbox-rows.js';

/** Events read ahead of a cursor to find a category's head when marking it. */
const HEAD_SEARCH_LIMIT = 1_000_000;

export interface DrainProgress {
  drained: boolean;
  /** `outbox` while step 1 runs, `subscriptions` during step 2. */
  step: 'outbox' | 'subscriptions' | 'drained';
  outboxes: OutboxDrain[];
  subscriptions: SubscriptionDrain[];
  /** What is left, one line each, for people (empty when drained). */
  left: string[];
}

export interface OutboxDrain {
  database: string;
  /** Open rows noted at the start. */
  tracked: number;
  /** Of those, still open (at least this many when `leftAtLeast`). */
  left: number;
  leftAtLeast: boolean;
  /** True when there were more open rows at the start than are tracked by id (the oldest are). */
  truncated: boolean;
  error?: string;
}

export interface SubscriptionDrain {
  subscription: string;
  source: PlannedSubscription['source'];
  /** The stream (broker) or category (event store). */
  stream: string;
  /** Present when the stream is split into partitions (`outbox.partitions` > 1 on the outbox broker): how many. */
  partitions?: number;
  /** The mark: the newest entry id or event position when step 2 began; null before, and for a partitioned stream (see `partitionMarks`). */
  mark: string | null;
  settled: boolean;
  /** A partitioned stream's marks, one per partition stream, each settled on its own; absent with one partition. */
  partitionMarks?: PartitionDrain[];
  error?: string;
}

export interface PartitionDrain {
  /** The partition's broker stream (`shop::order`, `shop::order#1`…). */
  stream: string;
  mark: string | null;
  settled: boolean;
}

type StreamMark = { stream: string; through: string | undefined };
type Mark = { kind: 'stream'; streams: StreamMark[] } | { kind: 'event_store'; head: ReaderCursor };

export class DrainWatch {
  private readonly plan: PlannedSubscription[];
  private marks: Map<PlannedSubscription, Mark> | null = null;

  private constructor(
    private readonly domain: Domain,
    private readonly outboxes: { name: string; rows: OpenOutboxRows | null; error?: string }[],
  ) {
    this.plan = planSubscriptions(domain);
  }

  /** Notes the open outbox rows of every managed database: the work "committed before the call". */
  static async begin(domain: Domain, options: { trackLimit?: number } = {}): Promise<DrainWatch> {
    // With the outbox off nothing is appended to it, and nothing would ever publish what is there.
    const databases = domain.outboxEnabled ? managedDatabases(domain) : [];
    const outboxes = await Promise.all(
      databases.map(async ({ name, provider }) => {
        try {
          return { name, rows: await OpenOutboxRows.note(provider.outbox, options.trackLimit) };
        } catch (err) {
          return { name, rows: null, error: problem(err) };
        }
      }),
    );
    return new DrainWatch(domain, outboxes);
  }

  async check(): Promise<DrainProgress> {
    const outboxes = await Promise.all(this.outboxes.map((o) => this.checkOutbox(o)));
    const outboxLeft = outboxes.filter((o) => o.left > 0 || o.leftAtLeast || o.error !== undefined);
    if (outboxLeft.length > 0 || this.outboxes.some((o) => o.rows === null)) {
      const subscriptions = this.plan.map((p) => ({ ...this.identify(p), mark: null, settled: false }));
      return { drained: false, step: 'outbox', outboxes, subscriptions, left: outboxLeft.map(describeOutbox) };
    }
    this.marks ??= await this.markHeads();
    const subscriptions = await Promise.all(this.plan.map((entry) => this.checkSubscription(entry, this.marks!.get(entry))));
    const left = subscriptions.filter((s) => !s.settled).map(describeSubscription);
    return { drained: left.length === 0, step: left.length === 0 ? 'drained' : 'subscriptions', outboxes, subscriptions, left };
  }

  private async checkOutbox(outbox: { name: string; rows: OpenOutboxRows | null; error?: string }): Promise<OutboxDrain> {
    if (outbox.rows === null) return { database: outbox.name, tracked: 0, left: 0, leftAtLeast: false, truncated: false, error: outbox.error ?? 'not read' };
    const tracked = outbox.rows.size;
    const truncated = outbox.rows.truncated;
    try {
      const { left, atLeast } = await outbox.rows.stillOpen();
      return { database: outbox.name, tracked, left, leftAtLeast: atLeast, truncated };
    } catch (err) {
      return { database: outbox.name, tracked, left: 0, leftAtLeast: true, truncated, error: problem(err) };
    }
  }

  private async markHeads(): Promise<Map<PlannedSubscription, Mark>> {
    const marks = new Map<PlannedSubscription, Mark>();
    for (const entry of this.plan) {
      try {
        if (entry.source === 'stream') {
          const broker = this.domain.runtime.infrastructure.broker(entry.broker);
          const streams = await Promise.all(
            plannedStreams(this.domain, entry).map(async (stream) => ({
              stream,
              through: (await broker.groupProgress(stream, entry.group)).head ?? undefined,
            })),
          );
          marks.set(entry, { kind: 'stream', streams });
        } else {
          const store = eventStoreOf(this.domain);
          const state = (await store.subscriptions.states()).find((s) => s.subscription === entry.group);
          const head = await eventsBehind(store, entry.stream, state?.cursor ?? { transactionId: 0, globalPosition: 0 }, HEAD_SEARCH_LIMIT);
          marks.set(entry, { kind: 'event_store', head: head.last });
        }
      } catch {
        // Unreadable now (broker or database down): marked on a later check.
      }
    }
    return marks;
  }

  private identify(entry: PlannedSubscription): Pick<SubscriptionDrain, 'subscription' | 'source' | 'stream' | 'partitions'> {
    const partitions = partitionCount(this.domain, entry);
    return { subscription: entry.group, source: entry.source, stream: entry.stream, ...(partitions > 1 ? { partitions } : {}) };
  }

  private async checkSubscription(entry: PlannedSubscription, mark: Mark | undefined): Promise<SubscriptionDrain> {
    const base = this.identify(entry);
    if (mark === undefined) {
      this.marks = null; // mark again on the next check
      return { ...base, mark: null, settled: false, error: 'its stream could not be read to mark its head' };
    }
    try {
      if (mark.kind === 'stream') {
        const broker = this.domain.runtime.infrastructure.broker(entry.broker);
        const partitions = await Promise.all(
          mark.streams.map(async ({ stream, through }): Promise<PartitionDrain> => {
            const progress = await broker.groupProgress(stream, entry.group, through);
            return { stream, mark: through ?? null, settled: progress.settled };
          }),
        );
        const settled = partitions.every((p) => p.settled);
        if (partitions.length === 1) return { ...base, mark: partitions[0]!.mark, settled };
        return { ...base, mark: null, settled, partitionMarks: partitions };
      }
      const state = (await eventStoreOf(this.domain).subscriptions.states()).find((s) => s.subscription === entry.group);
      const cursor = state?.cursor ?? { transactionId: 0, globalPosition: 0 };
      return { ...base, mark: `${mark.head.transactionId}/${mark.head.globalPosition}`, settled: cursorAtOrAfter(cursor, mark.head) };
    } catch (err) {
      return {
        ...base,
        mark:
          mark.kind === 'event_store'
            ? `${mark.head.transactionId}/${mark.head.globalPosition}`
            : mark.streams.length === 1
              ? (mark.streams[0]!.through ?? null)
              : null,
        settled: false,
        error: problem(err),
      };
    }
  }
}

function describeOutbox(o: OutboxDrain): string {
  if (o.error !== undefined) return `outbox of database "${o.database}": ${o.error}`;
  return `outbox of database "${o.database}": ${o.leftAtLeast ? 'at least ' : ''}${o.left} of ${o.tracked} rows not published yet`;
}

function describeSubscription(s: SubscriptionDrain): string {
  const where =
    s.source === 'stream' ? `stream "${s.stream}"${s.partitions !== undefined ? `, ${s.partitions} partitions` : ''}` : `event-store category "${s.stream}"`;
  if (s.error !== undefined) return `subscription ${s.subscription} (${where}): ${s.error}`;
  if (s.partitionMarks) {
    const left = s.partitionMarks.filter((p) => !p.settled).map((p) => `${p.mark ?? 'the end of its stream'} on ${p.stream}`);
    return `subscription ${s.subscription} (${where}): not handled up to ${left.join(', ')} yet`;
  }
  return `subscription ${s.subscription} (${where}): not handled up to ${s.mark ?? 'the end of its stream'} yet`;
}
