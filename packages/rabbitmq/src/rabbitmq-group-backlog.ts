/**
 * `groupStatus` and `groupProgress` for RabbitMQ. Over AMQP a process sees a queue's ready count
 * and consumers, but of the unacked deliveries only its own; the management API
 * (`management_uri`) reports everyone's, from statistics up to one interval old. So with the API
 * a group is settled through a mark once a reading that is surely newer than the mark shows the
 * queue empty with nothing unacked; without it, "settled" is never claimed.
 */
import type { GroupLag, GroupProgress, GroupStatus } from '@protean-ts/core';
import { RabbitMQManagementRequiredError } from './rabbitmq-management-required.error.js';
import type { RabbitMQManagementApi } from './rabbitmq-management.js';
import type { RabbitMQNames } from './rabbitmq-names.js';
import { parseProgressMark, progressMark } from './rabbitmq-progress-mark.js';
import type { RabbitMQTopology } from './rabbitmq-topology.js';

/**
 * Statistics reach the management database a little after each interval ends (up to about 100 ms
 * later, measured on RabbitMQ 3.10 with quorum queues): a reading is trusted to be this much
 * older than one interval on top.
 */
export const STATS_DELIVERY_SLACK_MS = 1_000;

export class RabbitMQGroupBacklog {
  constructor(
    private readonly brokerName: string,
    private readonly names: RabbitMQNames,
    private readonly topology: RabbitMQTopology,
    private readonly api: RabbitMQManagementApi | null,
    /** Deliveries of the queue this process holds unacked (read, or buffered by its consumer). */
    private readonly heldHere: (queue: string) => number,
  ) {}

  async status(stream: string, group: string): Promise<GroupStatus> {
    const queue = this.names.groupQueue(stream, group);
    const [live, reading] = await Promise.all([this.topology.queueCounts(queue), this.api ? this.api.queue(queue) : null]);
    if (live === null) return { pending: 0, lag: 0, exists: false };
    const here = this.heldHere(queue);
    if (!this.api) return { pending: here, lag: live.ready, exists: true, pendingLocalOnly: true };
    // The live ready count is the API's messages_ready without its delay. The API's unacked count
    // may be older than this process's own, which is exact: never report less than that.
    return { pending: Math.max(reading?.unacked ?? 0, here), lag: live.ready, exists: true };
  }

  /**
   * Every group queue of the stream with its ready plus unacked messages. The management API lists
   * the queues bound to the stream's exchange, whoever declared them; without it only the groups
   * this process declared are known, with the unacked deliveries this process holds.
   */
  async consumerLag(stream: string): Promise<GroupLag[]> {
    const prefix = this.names.groupQueue(stream, '');
    const groups = this.api
      ? (await this.api.queuesBoundTo(this.names.exchange(stream))).filter((queue) => queue.startsWith(prefix)).map((queue) => queue.slice(prefix.length))
      : this.topology.declaredGroups(stream);
    const lags: GroupLag[] = [];
    for (const group of groups) {
      const status = await this.status(stream, group);
      if (status.exists) lags.push({ group, behind: (status.lag ?? 0) + status.pending });
    }
    return lags;
  }

  async progress(stream: string, group: string, through: string | undefined): Promise<GroupProgress> {
    const markMs = through === undefined ? null : parseProgressMark(this.brokerName, through);
    const head = progressMark(Date.now());
    const queue = this.names.groupQueue(stream, group);
    const live = await this.topology.queueCounts(queue);
    if (live === null) {
      // No group queue yet, so nobody holds its messages: what a new group would take over waits
      // in the stream's holding queue.
      const held = await this.topology.queueCounts(this.names.holdingQueue(stream));
      return { exists: false, head, consumers: null, settled: (held?.ready ?? 0) === 0 };
    }
    if (!this.api) {
      if (markMs !== null) throw new RabbitMQManagementRequiredError(this.brokerName);
      return { exists: true, head, consumers: live.consumers, settled: false };
    }
    const reading = await this.api.queue(queue);
    const emptyInReading = reading !== null && reading.ready === 0 && reading.unacked === 0;
    if (markMs === null) return { exists: true, head, consumers: live.consumers, settled: emptyInReading && live.ready === 0 && this.heldHere(queue) === 0 };
    // A reading describes a moment no earlier than one stats interval (and the slack) before it
    // was requested. If that moment is after the mark and the queue was empty with nothing
    // unacked, everything in it at the mark was acked (or dead-lettered) by then.
    const newerThanMark = reading !== null && reading.requestedAt - this.api.statsIntervalMs - STATS_DELIVERY_SLACK_MS >= markMs;
    return { exists: true, head, consumers: live.consumers, settled: newerThanMark && emptyInReading };
  }
}
