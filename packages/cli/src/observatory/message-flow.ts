/**
 * Live message flow, sampled from the database rather than from a running server, so it works
 * against any server whatever its number of workers: messages published per second per stream
 * (outbox rows whose `published_at` falls in the last window) and messages accounted for per
 * second per subscription (the growth of its inbox checkpoints plus its handled-message records
 * between two samples).
 */
import type { Domain } from '@protean-ts/core';
import { INBOX_CHECKPOINTS_TABLE, INBOX_MESSAGES_TABLE, OUTBOX_TABLE } from '@protean-ts/mikro-orm';
import { inboxDatabase, outboxDatabases } from './sql-databases.js';

/** Published rates are averaged over this window: long enough to smooth a burst, short enough to look live. */
export const PUBLISHED_WINDOW_S = 10;

export interface StreamRate {
  database: string;
  stream: string;
  perSecond: number;
  /** Rows published in the window. */
  published: number;
}

export interface SubscriptionRate {
  subscription: string;
  /** Null on the first sample (nothing to compare with yet). */
  perSecond: number | null;
  /** Messages this subscription has accounted for since its inbox began (checkpoints plus handled records). */
  total: number;
}

export interface MessageFlow {
  sampledAt: string;
  windowSeconds: number;
  streams: StreamRate[];
  subscriptions: SubscriptionRate[];
  /** Databases whose outbox or inbox SQL cannot read (memory), so their messages are not counted. */
  unsupported: string[];
}

/** Keeps the previous sample to turn inbox totals into rates. One per observatory. */
export class MessageFlowSampler {
  private previous: { at: number; totals: Map<string, number> } | null = null;

  constructor(private readonly domain: Domain) {}

  async sample(): Promise<MessageFlow> {
    const { sql, unsupported } = outboxDatabases(this.domain);
    const streams: StreamRate[] = [];
    for (const { name, db } of sql) {
      const { rows } = await db.execute<{ stream_name: string; published: string }>(
        `SELECT stream_name, count(*) AS published FROM ${db.qualify(OUTBOX_TABLE)}
         WHERE status = 'published' AND published_at >= now() - make_interval(secs => ?)
         GROUP BY stream_name ORDER BY stream_name`,
        [PUBLISHED_WINDOW_S],
      );
      for (const row of rows) {
        const published = Number(row.published);
        streams.push({ database: name, stream: row.stream_name, published, perSecond: published / PUBLISHED_WINDOW_S });
      }
    }

    const inbox = inboxDatabase(this.domain);
    const subscriptions: SubscriptionRate[] = [];
    if (inbox) {
      const now = Date.now();
      const { rows } = await inbox.execute<{ subscription: string; total: string }>(
        `SELECT subscription, sum(total) AS total FROM (
           SELECT subscription, sum(last_sequence) AS total FROM ${inbox.qualify(INBOX_CHECKPOINTS_TABLE)} GROUP BY subscription
           UNION ALL
           SELECT subscription, count(*) AS total FROM ${inbox.qualify(INBOX_MESSAGES_TABLE)} GROUP BY subscription
         ) counted GROUP BY subscription ORDER BY subscription`,
      );
      const totals = new Map(rows.map((row) => [row.subscription, Number(row.total)]));
      const before = this.previous;
      for (const [subscription, total] of totals) {
        const earlier = before?.totals.get(subscription) ?? 0;
        // Cleanup of old handled records can shrink a total: that is no negative traffic.
        const perSecond = before ? Math.max(0, total - earlier) / Math.max(0.001, (now - before.at) / 1000) : null;
        subscriptions.push({ subscription, total, perSecond });
      }
      this.previous = { at: now, totals };
    } else {
      unsupported.push(`inbox ${this.domain.config.inbox.database}`);
    }
    return { sampledAt: new Date().toISOString(), windowSeconds: PUBLISHED_WINDOW_S, streams, subscriptions, unsupported };
  }
}
