/**
 * Relay back-pressure as `status` sees it from outside the servers: for each broker the outbox
 * relays to with `outbox.max_consumer_lag` on, the consumer group furthest behind on the streams
 * the domain's subscriptions read there (every group of those streams, the domain's or not), and
 * whether that holds the relay back, which is the decision each relay makes at its checks.
 */
import { outboxEnabled, type Broker, type Domain } from '@protean-ts/core';
import { plannedStreams, type PlannedSubscription } from '../subscriptions/subscription-plan.js';
import type { RelayPressureReport } from './system-status.js';

export async function collectRelayPressure(
  domain: Domain,
  planned: readonly PlannedSubscription[],
  problem: (err: unknown) => string,
): Promise<RelayPressureReport[] | undefined> {
  const { outbox } = domain.config;
  const maxConsumerLag = outbox.max_consumer_lag ?? 0;
  if (!outboxEnabled(domain.config) || maxConsumerLag <= 0) return undefined;
  const targets = [...new Set([outbox.broker, ...outbox.external_brokers])];
  return Promise.all(
    targets.map(async (name): Promise<RelayPressureReport> => {
      const streams = [...new Set(planned.filter((p) => p.source === 'stream' && p.broker === name).flatMap((p) => plannedStreams(domain, p)))];
      try {
        const worst = await worstGroup(domain.runtime.infrastructure.broker(name), streams);
        return { broker: name, maxConsumerLag, heldBack: worst !== null && worst.behind > maxConsumerLag, worst };
      } catch (err) {
        return { broker: name, maxConsumerLag, heldBack: false, worst: null, error: problem(err) };
      }
    }),
  );
}

async function worstGroup(broker: Broker, streams: readonly string[]): Promise<RelayPressureReport['worst']> {
  if (!broker.has('CONSUMER_LAG') || !broker.consumerLag) throw new Error(`broker "${broker.name}" cannot report its consumers' lag (capability CONSUMER_LAG)`);
  let worst: RelayPressureReport['worst'] = null;
  for (const stream of streams) {
    for (const { group, behind } of await broker.consumerLag(stream)) if (!worst || behind > worst.behind) worst = { stream, group, behind };
  }
  return worst;
}
