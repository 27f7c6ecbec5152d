/**
 * `groupStatus` and `consumerLag` for NATS JetStream, read from consumer info. `consumerLag`
 * lists every consumer of the stream's JetStream stream, each with what it has not delivered
 * (`num_pending`) plus what it delivered and awaits acks for (`num_ack_pending`); consumers are
 * the protean groups, named back from their durable names.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { GroupLag, GroupStatus } from '@protean-ts/core';
import { isConsumerNotFound, isStreamNotFound } from './nats-dead-letters.js';
import { fromNatsToken } from './nats-names.js';

export async function readNatsConsumerLag(manager: JetStreamManager, jetStreamName: string): Promise<GroupLag[]> {
  const lags: GroupLag[] = [];
  try {
    for await (const info of manager.consumers.list(jetStreamName)) {
      lags.push({ group: fromNatsToken(info.name), behind: info.num_pending + info.num_ack_pending });
    }
  } catch (error) {
    if (isStreamNotFound(error)) return [];
    throw error;
  }
  return lags;
}

export async function readNatsGroupStatus(manager: JetStreamManager, jetStreamName: string, durable: string): Promise<GroupStatus> {
  try {
    const info = await manager.consumers.info(jetStreamName, durable);
    return { pending: info.num_ack_pending, lag: info.num_pending, exists: true };
  } catch (err) {
    if (isStreamNotFound(err) || isConsumerNotFound(err)) return { pending: 0, lag: 0, exists: false };
    throw err;
  }
}
