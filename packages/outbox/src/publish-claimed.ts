/**
 * Publishes a claimed batch in one broker call (a Redis pipeline) and sorts every row into
 * published, failed (a message-level error: an attempt) or unsent (the broker went away: no
 * attempt). When the broker rejects the batch without saying which message was at fault, the
 * rows are sent one by one so only the faulty ones are charged an attempt.
 */
import { BrokerBatchError, partitionOf, partitionStream, type Broker, type OutboxRow, type OutgoingMessage } from '@protean-ts/core';
import { isBrokerOutage } from './broker-outage.js';

export interface PublishOutcome {
  published: OutboxRow[];
  failed: { row: OutboxRow; error: Error }[];
  /** Not handed to the broker, or lost with the connection; to be released untouched. */
  unsent: OutboxRow[];
  /** The outage error when the broker became unreachable. */
  outage: Error | null;
}

/** The row's stream, or with `outbox.partitions` > 1 the partition of it its key hashes to. */
export function rowStream(row: OutboxRow, partitions: number): string {
  return partitions > 1 ? partitionStream(row.streamName, partitionOf(row.partitionKey, partitions)) : row.streamName;
}

/** `partitions`: the stream partitions of this broker (`outbox.partitions`; 1 for an external broker). */
export async function publishClaimed(broker: Broker, rows: readonly OutboxRow[], partitions = 1): Promise<PublishOutcome> {
  const outcome: PublishOutcome = { published: [], failed: [], unsent: [], outage: null };
  const toMessage = (row: OutboxRow): OutgoingMessage => ({ stream: rowStream(row, partitions), envelope: row.envelope });
  try {
    await broker.publishBatch(rows.map(toMessage));
    outcome.published.push(...rows);
    return outcome;
  } catch (error) {
    if (isBrokerOutage(error)) return { ...outcome, unsent: [...rows], outage: error as Error };
    if (error instanceof BrokerBatchError && error.results.length === rows.length) {
      error.results.forEach((result, i) => {
        const row = rows[i]!;
        if (result.ok) outcome.published.push(row);
        else if (isBrokerOutage(result.error)) {
          outcome.unsent.push(row);
          outcome.outage ??= result.error;
        } else outcome.failed.push({ row, error: result.error });
      });
      return outcome;
    }
  }
  return publishOneByOne(broker, rows, outcome, toMessage);
}

async function publishOneByOne(
  broker: Broker,
  rows: readonly OutboxRow[],
  outcome: PublishOutcome,
  toMessage: (row: OutboxRow) => OutgoingMessage,
): Promise<PublishOutcome> {
  for (const [i, row] of rows.entries()) {
    try {
      await broker.publish(toMessage(row));
      outcome.published.push(row);
    } catch (error) {
      if (isBrokerOutage(error)) {
        outcome.unsent.push(...rows.slice(i));
        outcome.outage = error as Error;
        return outcome;
      }
      outcome.failed.push({ row, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
  return outcome;
}
