/**
 * A subscription over priority lanes (`[outbox.lanes] enabled`): one read loop per lane, each on
 * the lane's own stream (`<stream>` for live, `<stream>:<lane>` for the others), in the same
 * consumer group, inbox and flow gate. A lane besides live runs at most `ceil(concurrency ×
 * share)` messages at once and reads ahead as many, so however long its backlog, live messages
 * neither queue behind it nor wait for more than that share of the worker; it always keeps at
 * least one, so it never starves. A key's order across lanes is kept by the inbox positions.
 */
import { LIVE_LANE, type StreamSubscriptionConfig } from '@protean-ts/core';
import { newCounters } from './subscription-lifecycle.js';
import type { Subscription, SubscriptionCounters, SubscriptionState, SubscriptionStatus } from './subscription-status.js';

/** What a lane's loop may run at once and read ahead: the live lane everything, another lane its share (at least 1). */
export function laneBudget(
  lane: string,
  share: number,
  base: { settings: StreamSubscriptionConfig; batchSize: number },
): { settings: StreamSubscriptionConfig; batchSize: number } {
  if (lane === LIVE_LANE) return base;
  const concurrency = Math.max(1, Math.ceil(base.settings.concurrency * share));
  return { settings: { ...base.settings, concurrency }, batchSize: Math.max(1, Math.ceil(base.batchSize * share)) };
}

export interface LaneLoop {
  lane: string;
  loop: Subscription;
}

export class LanedSubscription implements Subscription {
  readonly name: string;

  /** `lanes`: live first, then the others. */
  constructor(private readonly lanes: readonly LaneLoop[]) {
    if (lanes[0]?.lane !== LIVE_LANE) throw new Error('a laned subscription reads the live lane first');
    this.name = lanes[0].loop.name;
  }

  start(): void {
    for (const { loop } of this.lanes) loop.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.lanes.map(({ loop }) => loop.stop()));
  }

  async finished(): Promise<void> {
    await Promise.all(this.lanes.map(({ loop }) => loop.finished()));
  }

  /** The live loop's identity (stream, group, flow), with the counters and messages in flight of every lane. */
  status(): SubscriptionStatus {
    const statuses = this.lanes.map(({ loop }) => loop.status());
    const live = statuses[0]!;
    const counters: SubscriptionCounters = newCounters();
    for (const status of statuses) for (const key of Object.keys(counters) as (keyof SubscriptionCounters)[]) counters[key] += status[key];
    return {
      ...live,
      ...counters,
      state: worstState(statuses.map((s) => s.state)),
      lastError: statuses.find((s) => s.lastError)?.lastError ?? null,
      inFlight: statuses.reduce((total, s) => total + s.inFlight, 0),
      lanes: this.lanes.slice(1).map(({ lane }) => lane),
    };
  }
}

/** Running only when every lane's loop runs; otherwise the state of the first that does not. */
function worstState(states: readonly SubscriptionState[]): SubscriptionState {
  return states.find((state) => state !== 'running') ?? 'running';
}
