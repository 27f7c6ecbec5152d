/**
 * A stream subscription over a partitioned stream (`outbox.partitions` > 1): one ConsumerLoop
 * per partition this process holds, started when PartitionOwnership gains the partition and
 * stopped (messages being handled finish, the rest go back to the group) when it loses it. A
 * key's messages all live in one partition, so they are all read here, in order, and the inbox
 * finds their predecessors handled instead of waiting on another worker.
 */
import type { Logger } from '@protean-ts/core';
import type { PartitionListener } from './partition-ownership.js';
import { newCounters } from './subscription-lifecycle.js';
import type { Subscription, SubscriptionCounters, SubscriptionStatus } from './subscription-status.js';

export interface PartitionedSubscriptionOptions {
  name: string;
  kind: 'stream' | 'broker';
  /** The stream's own name (partition 0). */
  stream: string;
  group: string;
  broker: string;
  partitions: number;
  /** A read loop over one partition's stream (with lanes, one per lane: a LanedSubscription). */
  loopFor(partition: number): Subscription;
  logger: Logger;
}

export class PartitionedSubscription implements Subscription, PartitionListener {
  readonly name: string;
  private readonly loops = new Map<number, Subscription>();
  /** Counters of loops already stopped (a partition that moved away), so totals never go back. */
  private readonly past: SubscriptionCounters = newCounters();
  private started = false;
  private stopping: Promise<void> | null = null;
  private readonly ended: Promise<void>[] = [];

  constructor(private readonly options: PartitionedSubscriptionOptions) {
    this.name = options.name;
  }

  /** Partitions read here now, sorted. */
  get partitions(): number[] {
    return [...this.loops.keys()].sort((a, b) => a - b);
  }

  start(): void {
    this.started = true;
  }

  gained(partition: number): void {
    if (this.stopping || this.loops.has(partition)) return;
    const loop = this.options.loopFor(partition);
    this.loops.set(partition, loop);
    loop.start();
    this.ended.push(loop.finished());
  }

  async lost(partition: number): Promise<void> {
    const loop = this.loops.get(partition);
    if (!loop) return;
    await loop.stop();
    this.loops.delete(partition);
    addCounters(this.past, loop.status());
  }

  stop(): Promise<void> {
    this.stopping ??= Promise.all(this.partitions.map((p) => this.lost(p))).then(() => undefined);
    return this.stopping;
  }

  async finished(): Promise<void> {
    await Promise.all(this.ended);
  }

  status(): SubscriptionStatus {
    const { name, kind, stream, group, broker, partitions } = this.options;
    const statuses = [...this.loops.values()].map((loop) => loop.status());
    const counters = { ...this.past };
    for (const status of statuses) addCounters(counters, status);
    return {
      name,
      kind,
      stream,
      group,
      broker,
      state: subscriptionState(this.started, this.stopping !== null, statuses),
      lastError: statuses.find((s) => s.lastError)?.lastError ?? null,
      inFlight: statuses.reduce((total, s) => total + s.inFlight, 0),
      partitions: { count: partitions, read: this.partitions },
      ...(statuses[0]?.lanes ? { lanes: statuses[0].lanes } : {}),
      ...counters,
      // The partitions' loops share one flow gate: any of them shows it.
      ...(statuses[0]?.flow ? { flow: statuses[0].flow } : {}),
    };
  }
}

/** Running when every partition's loop runs; standby (healthy) while it holds none. */
function subscriptionState(started: boolean, stopping: boolean, loops: readonly SubscriptionStatus[]): SubscriptionStatus['state'] {
  if (stopping) return loops.length ? 'stopping' : 'stopped';
  if (!started) return 'idle';
  if (loops.length === 0) return 'standby';
  const troubled = loops.find((s) => s.state !== 'running');
  return troubled ? troubled.state : 'running';
}

function addCounters(into: SubscriptionCounters, from: SubscriptionCounters): void {
  for (const key of Object.keys(into) as (keyof SubscriptionCounters)[]) into[key] += from[key];
}
