/**
 * Live message flow, sampled from the databases rather than from a running server, so it works
 * against any server whatever its number of workers, and through the store ports, so on every
 * database provider: messages published per second per stream (each managed database's outbox
 * rows published in the last window) and messages accounted for per second per subscription (the
 * growth of its inbox total between two samples).
 */
import type { Domain } from '@protean-ts/core';
import { managedDatabases, problem } from '@protean-ts/server/operations';

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
  /** Outboxes or the inbox that could not be read this time (or an inbox that is off), and why. */
  unread: string[];
}

/** Keeps the previous sample to turn inbox totals into rates. One per observatory. */
export class MessageFlowSampler {
  private previous: { at: number; totals: Map<string, number> } | null = null;

  constructor(private readonly domain: Domain) {}

  async sample(): Promise<MessageFlow> {
    const unread: string[] = [];
    const since = new Date(Date.now() - PUBLISHED_WINDOW_S * 1000);
    const perDatabase = await Promise.all(
      managedDatabases(this.domain).map(async ({ name, provider }): Promise<StreamRate[]> => {
        try {
          const counted = await provider.outbox.publishedByStream(since);
          return counted.map(({ streamName, published }) => ({ database: name, stream: streamName, published, perSecond: published / PUBLISHED_WINDOW_S }));
        } catch (error) {
          unread.push(`outbox of ${name}: ${problem(error)}`);
          return [];
        }
      }),
    );
    return {
      sampledAt: new Date().toISOString(),
      windowSeconds: PUBLISHED_WINDOW_S,
      streams: perDatabase.flat(),
      subscriptions: await this.subscriptionRates(unread),
      unread,
    };
  }

  private async subscriptionRates(unread: string[]): Promise<SubscriptionRate[]> {
    const inbox = this.domain.runtime.messages.inbox;
    if (!inbox) {
      unread.push('inbox: off ([inbox] enabled = false)');
      return [];
    }
    const now = Date.now();
    let totals: Map<string, number>;
    try {
      totals = new Map((await inbox.totals()).map((row) => [row.subscription, row.total]));
    } catch (error) {
      unread.push(`inbox of ${this.domain.config.inbox.database}: ${problem(error)}`);
      return [];
    }
    const before = this.previous;
    const rates: SubscriptionRate[] = [];
    for (const [subscription, total] of totals) {
      const earlier = before?.totals.get(subscription) ?? 0;
      // Cleanup of old handled records can shrink a total: that is no negative traffic.
      const perSecond = before ? Math.max(0, total - earlier) / Math.max(0.001, (now - before.at) / 1000) : null;
      rates.push({ subscription, total, perSecond });
    }
    this.previous = { at: now, totals };
    return rates;
  }
}
