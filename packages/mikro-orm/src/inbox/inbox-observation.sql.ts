/**
 * What observers (the Observatory) read from the inbox: the checkpoints and passed positions of a
 * request's keys, and each subscription's total of messages accounted for.
 */
import type { InboxTableNames } from './inbox-tables.js';

type Statement = { sql: string; params: unknown[] };

export function checkpointsOfKeysSql(t: InboxTableNames, keys: readonly string[]): Statement {
  return {
    sql: `SELECT subscription, partition_key, last_sequence, updated_at FROM ${t.checkpoints} WHERE partition_key = ANY(?::text[])`,
    params: [keys],
  };
}

export function passedOfKeysSql(t: InboxTableNames, keys: readonly string[]): Statement {
  return {
    sql: `SELECT subscription, partition_key, sequence, reason, passed_at FROM ${t.passed} WHERE partition_key = ANY(?::text[])`,
    params: [keys],
  };
}

/** Checkpoint sequences summed plus handled-message records, per subscription. */
export function subscriptionTotalsSql(t: InboxTableNames): Statement {
  return {
    sql: `SELECT subscription, sum(total) AS total FROM (
  SELECT subscription, sum(last_sequence) AS total FROM ${t.checkpoints} GROUP BY subscription
  UNION ALL
  SELECT subscription, count(*) AS total FROM ${t.messages} GROUP BY subscription
) counted GROUP BY subscription ORDER BY subscription COLLATE "C"`,
    params: [],
  };
}
