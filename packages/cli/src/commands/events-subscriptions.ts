/**
 * `protean-ts events subscriptions`: each event-store subscription of the domain with the worker
 * holding its lease (and until when), its saved cursor, how many events of its category follow
 * that cursor (counted up to --max-count) and its dead letters. Reads the store directly, so it
 * works against any running server.
 */
import type { Domain, EventStore } from '@protean-ts/core';
import { eventsBehind, planSubscriptions } from '@protean-ts/server/operations';
import type { CliIO } from '../cli-context.js';

export interface SubscriptionsOptions {
  maxCount: number;
  json?: boolean;
}

interface Row {
  subscription: string;
  handler: string;
  category: string;
  owner: string | null;
  leaseExpiresAt: string | null;
  cursor: { transactionId: number; globalPosition: number };
  /** Events of the category after the cursor (at least this many when `behindCapped`). */
  behind: number;
  behindCapped: boolean;
  deadLetters: number;
}

export async function subscriptions(store: EventStore, domain: Domain, io: CliIO, options: SubscriptionsOptions): Promise<void> {
  const planned = planSubscriptions(domain).filter((p) => p.source === 'event_store');
  const states = await store.subscriptions.states();
  const rows: Row[] = [];
  for (const entry of planned) {
    const state = states.find((s) => s.subscription === entry.group);
    const cursor = state?.cursor ?? { transactionId: 0, globalPosition: 0 };
    const { count, capped } = await eventsBehind(store, entry.stream, cursor, options.maxCount);
    rows.push({
      subscription: entry.group,
      handler: entry.cls.name,
      category: entry.stream,
      owner: state?.owner ?? null,
      leaseExpiresAt: state?.leaseExpiresAt?.toISOString() ?? null,
      cursor,
      behind: count,
      behindCapped: capped,
      deadLetters: state?.deadLetters ?? 0,
    });
  }
  if (options.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    io.stdout('events subscriptions: none (no handler reads the event store; see server.default_subscription_type and subscriptionType)\n');
    return;
  }
  for (const row of rows) {
    const lease = row.owner ? `held by ${row.owner} until ${row.leaseExpiresAt}` : 'not held (no worker reads it)';
    const behind = `${row.behindCapped ? '≥ ' : ''}${row.behind} behind`;
    io.stdout(
      `  ${row.subscription} (${row.handler}) <- ${row.category}  ${behind}  cursor ${row.cursor.transactionId}/${row.cursor.globalPosition}  ${row.deadLetters} dead letters  ${lease}\n`,
    );
  }
  io.stdout(`events subscriptions: ${rows.length} event-store ${rows.length === 1 ? 'subscription' : 'subscriptions'}\n`);
}
