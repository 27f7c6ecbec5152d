/**
 * Where an order's time goes between its hops, read off the outbox rows of a phase: the relay
 * (a row's commit → published on the broker) and the hand-off (a message published → the
 * transaction of the handler that reacted to it began, which wrote the next row, the child
 * naming it as its cause). `created_at` is its transaction's start (now()), so with batched
 * transactions a hand-off counts from the batch's BEGIN, and can be slightly negative.
 */
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { percentile } from './percentiles.js';

export interface HopLatencies {
  relayP50: number;
  relayP99: number;
  handoffP50: number;
  handoffP99: number;
}

/** The rows created since `sinceMs` (ms since epoch), in ms. */
export async function hopLatencies(db: TempDatabase, sinceMs: number): Promise<HopLatencies> {
  const since = new Date(sinceMs).toISOString();
  const relay = await db.query<{ ms: number }>(
    `SELECT extract(epoch FROM published_at - created_at) * 1000 AS ms FROM protean_outbox WHERE created_at >= $1 AND published_at IS NOT NULL`,
    [since],
  );
  const handoff = await db.query<{ ms: number }>(
    `SELECT extract(epoch FROM child.created_at - parent.published_at) * 1000 AS ms
       FROM protean_outbox parent JOIN protean_outbox child ON child.causation_id = parent.message_id
      WHERE parent.created_at >= $1 AND parent.published_at IS NOT NULL`,
    [since],
  );
  const of = (rows: { ms: number }[]) => rows.map((row) => Number(row.ms));
  return {
    relayP50: percentile(of(relay), 50),
    relayP99: percentile(of(relay), 99),
    handoffP50: percentile(of(handoff), 50),
    handoffP99: percentile(of(handoff), 99),
  };
}
