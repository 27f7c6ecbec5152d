/**
 * A small domain for priority-lane tests: `Ticked` events of `Feed` aggregates, each carrying the
 * time it was committed and whether the test sent it as backfill, handled by `Recorder`, which
 * notes the handling delay of every event and the order of each feed's events, after `workMs`
 * standing for the handler's work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';
import type { FlowBroker } from './flow-brokers.js';
import type { TempDatabase } from './real-services.js';

export interface LaneProbe {
  /** Handling delays (ms from commit to the handler's start) of the live events, in handling order. */
  liveDelays: number[];
  backfillHandled: number;
  /** `n` of each feed's events in the order the handler saw them. */
  orderOf: Map<string, number[]>;
  workMs: number;
}

export function newLaneProbe(workMs: number): LaneProbe {
  return { liveDelays: [], backfillHandled: 0, orderOf: new Map(), workMs };
}

export function lanesDomain(
  db: TempDatabase,
  broker: FlowBroker,
  probe: LaneProbe,
  lanes: Record<string, unknown>,
  subscription: Record<string, unknown> = {},
) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-lanes-'));
  const config: ConfigOverrides = {
    event_processing: 'async',
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 12 } },
    brokers: { default: broker.settings as never },
    server: {
      health: { port: 0 },
      tick_interval: 0.05,
      stream_subscription: { blocking_timeout_ms: 50, concurrency: 8, ...subscription },
    },
    outbox: { tick_interval: 0.05, lanes: lanes as never },
  };
  const domain = new Domain('Lanes', { root, config });

  @domain.aggregate()
  class Feed extends BaseAggregate {
    @field.integer({ required: true }) ticks!: number;
  }

  @domain.event({ partOf: Feed })
  class Ticked extends BaseEvent {
    @field.identifier({ required: true }) feedId!: string;
    @field.integer({ required: true }) n!: number;
    @field.integer({ required: true }) committedAt!: number;
    @field.boolean({ required: true }) backfill!: boolean;
  }

  @domain.eventHandler({ partOf: Feed })
  class Recorder extends BaseEventHandler {
    @handle(Ticked) async onTicked(event: Ticked): Promise<void> {
      const delay = Date.now() - event.committedAt;
      if (probe.workMs > 0) await new Promise((resolve) => setTimeout(resolve, probe.workMs));
      if (event.backfill) probe.backfillHandled += 1;
      else probe.liveDelays.push(delay);
      const seen = probe.orderOf.get(event.feedId) ?? [];
      seen.push(event.n);
      probe.orderOf.set(event.feedId, seen);
    }
  }

  /** Commits `feeds` feeds of `perFeed` events each in the backfill lane (one unit of work per feed). */
  async function commitBackfill(feeds: number, perFeed: number): Promise<void> {
    for (let f = 0; f < feeds; f += 1) {
      await domain.uow(
        async () => {
          const feed = Feed.create({ ticks: perFeed });
          for (let n = 1; n <= perFeed; n += 1) feed.raise(Ticked.create({ feedId: feed.id, n, committedAt: Date.now(), backfill: true }));
          await domain.repositoryFor(Feed).add(feed);
        },
        { lane: 'backfill' },
      );
    }
  }

  /** One event of a new feed in the live lane (the default). */
  async function commitLive(): Promise<void> {
    const feed = Feed.create({ ticks: 1 });
    feed.raise(Ticked.create({ feedId: feed.id, n: 1, committedAt: Date.now(), backfill: false }));
    await domain.repositoryFor(Feed).add(feed);
  }

  /** One more event of an existing feed, in `lane`. */
  async function commitNext(feedId: string, n: number, lane: 'live' | 'backfill'): Promise<void> {
    await domain.uow(
      async () => {
        const feeds = domain.repositoryFor(Feed);
        const feed = await feeds.get(feedId);
        feed.ticks += 1;
        feed.raise(Ticked.create({ feedId, n, committedAt: Date.now(), backfill: lane === 'backfill' }));
        await feeds.add(feed);
      },
      { lane },
    );
  }

  /** A new feed with its first event, in `lane`; returns its id. */
  async function commitFirst(lane: 'live' | 'backfill'): Promise<string> {
    let id = '';
    await domain.uow(
      async () => {
        const feed = Feed.create({ ticks: 1 });
        id = feed.id;
        feed.raise(Ticked.create({ feedId: feed.id, n: 1, committedAt: Date.now(), backfill: lane === 'backfill' }));
        await domain.repositoryFor(Feed).add(feed);
      },
      { lane },
    );
    return id;
  }

  async function setUp(): Promise<void> {
    await domain.init();
    for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  }
  return { domain, commitBackfill, commitLive, commitNext, commitFirst, setUp, Recorder };
}

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
