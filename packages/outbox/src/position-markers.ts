/**
 * After rows are abandoned: publishes a PositionPassed marker for each in its place (same stream,
 * same position), so the subscriptions' inbox moves each key past the abandoned message at once
 * instead of holding the key's later messages for `gap_timeout_seconds`. Best effort: a marker
 * that cannot be published leaves the gap timeout to do the same, later.
 */
import { rowStream } from './publish-claimed.js';
import { positionOf, positionPassedEnvelope, type Broker, type Logger, type OutboxRow } from '@protean-ts/core';

/** `partitions` as for publishClaimed: a marker goes to the partition its message would have. */
export async function publishPositionMarkers(
  broker: Broker,
  abandoned: readonly { row: OutboxRow; error: string }[],
  log: Logger,
  partitions = 1,
): Promise<void> {
  const markers = abandoned.flatMap(({ row, error }) => {
    const position = positionOf(row.envelope);
    if (!position) return [];
    const envelope = positionPassedEnvelope({
      position,
      messageId: row.messageId,
      messageType: row.messageType,
      // Abandoned rows are often malformed: nothing of the envelope but its position is relied on.
      streamCategory: row.envelope?.metadata?.domain?.streamCategory ?? row.streamName,
      reason: `abandoned in the outbox: ${error}`,
    });
    return [{ stream: rowStream(row, partitions), envelope }];
  });
  if (markers.length === 0) return;
  try {
    await broker.publishBatch(markers);
    log.warn('published position markers for abandoned messages; subscriptions move their keys past them', {
      count: markers.length,
      messageIds: abandoned.map(({ row }) => row.messageId),
    });
  } catch (error) {
    log.error("could not publish position markers for abandoned messages; their keys wait for the subscriptions' gap_timeout_seconds", {
      count: markers.length,
      error,
    });
  }
}
