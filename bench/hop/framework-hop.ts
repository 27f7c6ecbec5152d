/**
 * The framework side: a stream subscription exactly as the Engine builds it for an event handler
 * (createStreamSubscription, the domain's `[server]` settings, the inbox on), reading one
 * prefilled stream through a consumer group of its own.
 */
import { getLogger, type Domain } from '@protean-ts/core';
import { createStreamSubscription, type ConsumerLoop } from '@protean-ts/server';
import { CounterKeeper } from './hop-domain.js';

export function frameworkSubscription(domain: Domain, stream: string, group: string): ConsumerLoop {
  const { server } = domain.config;
  const broker = domain.runtime.infrastructure.broker(domain.config.outbox.broker);
  return createStreamSubscription({
    domain,
    handler: CounterKeeper,
    group,
    stream,
    broker,
    consumer: `bench-${process.pid}`,
    settings: server.stream_subscription,
    batchSize: server.messages_per_tick,
    tickIntervalMs: server.tick_interval * 1000,
    // As the Engine sets it.
    reclaimIntervalMs: Math.min(30_000, Math.max(1_000, broker.claimIdleMs / 2)),
    logger: getLogger('server', { bench: 'hop' }),
  });
}
