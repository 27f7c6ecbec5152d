/**
 * The model bench/lanes drives: `Feed` aggregates raise `Ticked` events carrying their commit
 * time; the handler under test waits `workMs` (a call out) and notes each live event's delay from
 * commit to handler start, and how many backfill events it handled. One domain per case, so each
 * case has its own `[outbox.lanes]` setting, database and Redis prefix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';

export interface LaneCounts {
  liveDelays: number[];
  backfillHandled: number;
}

export interface LanesDomainOptions {
  databaseUri: string;
  redisUri: string;
  prefix: string;
  lanesEnabled: boolean;
  workMs: number;
}

export function lanesDomain(options: LanesDomainOptions) {
  const counts: LaneCounts = { liveDelays: [], backfillHandled: 0 };
  // A root of its own: the repository's domain.toml never leaks in; everything not set is the default a user gets.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-bench-lanes-'));
  const domain = new Domain('BenchLanes', {
    root,
    config: {
      event_processing: 'async',
      databases: { default: { provider: 'postgresql', database_uri: options.databaseUri } },
      brokers: { default: { provider: 'redis', uri: options.redisUri, stream_prefix: options.prefix } as never },
      server: { health: { port: 0 } },
      outbox: { lanes: { enabled: options.lanesEnabled, names: ['backfill'], share: 0.25 } as never },
    },
  });

  @domain.aggregate()
  class Feed extends BaseAggregate {
    @field.integer({ required: true }) ticks!: number;
  }

  @domain.event({ partOf: Feed })
  class Ticked extends BaseEvent {
    @field.integer({ required: true }) committedAt!: number;
    @field.boolean({ required: true }) backfill!: boolean;
  }

  @domain.eventHandler({ partOf: Feed })
  class Recorder extends BaseEventHandler {
    @handle(Ticked) async onTicked(event: Ticked): Promise<void> {
      const delay = Date.now() - event.committedAt;
      await sleep(options.workMs);
      if (event.backfill) counts.backfillHandled += 1;
      else counts.liveDelays.push(delay);
    }
  }

  /** `events` backfill events over `keys` feeds, one unit of work per feed, in the backfill lane. */
  async function commitBackfill(events: number, keys: number): Promise<void> {
    const perKey = Math.ceil(events / keys);
    for (let k = 0, left = events; left > 0; k += 1) {
      const n = Math.min(perKey, left);
      left -= n;
      await domain.uow(
        async () => {
          const feed = Feed.create({ ticks: n });
          for (let i = 0; i < n; i += 1) feed.raise(Ticked.create({ committedAt: Date.now(), backfill: true }));
          await domain.repositoryFor(Feed).add(feed);
        },
        { lane: 'backfill' },
      );
    }
  }

  /** One live event on a feed of its own. */
  async function commitLive(): Promise<void> {
    const feed = Feed.create({ ticks: 1 });
    feed.raise(Ticked.create({ committedAt: Date.now(), backfill: false }));
    await domain.repositoryFor(Feed).add(feed);
  }

  async function setUp(): Promise<void> {
    await domain.init();
    await domain.providers.get('default')!.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  }

  return { domain, counts, commitBackfill, commitLive, setUp, Recorder };
}
