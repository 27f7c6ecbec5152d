/**
 * What every subscription kind (handler streams and raw broker subscribers) is built from, and
 * the part of a ConsumerLoop's options that follows from it, so the kinds differ only in how
 * they handle a message.
 */
import type { Broker, Domain, Logger, StreamSubscriptionConfig } from '@protean-ts/core';
import type { ConsumerLoopOptions } from './consumer-loop.js';
import { flowGateFor } from './flow/flow-gates.js';

export interface SubscriptionOptions {
  domain: Domain;
  /** The consumer group: the handler's or subscriber's subscription name. */
  group: string;
  /** The stream category (`shop::order`), command stream (`shop::order:command`) or broker stream. */
  stream: string;
  broker: Broker;
  consumer: string;
  settings: StreamSubscriptionConfig;
  batchSize: number;
  tickIntervalMs: number;
  reclaimIntervalMs: number;
  logger: Logger;
}

export function consumerLoopBase(options: SubscriptionOptions): Omit<ConsumerLoopOptions, 'kind' | 'handle' | 'isPermanent'> {
  const { domain, group } = options;
  const flow = flowGateFor(domain, group, options.consumer, options.logger);
  return {
    ...(flow ? { flow } : {}),
    inbox: domain.runtime.messages.inbox,
    // Over a timed-out gap, a message this subscription does not handle still moves its key.
    jumpOver: (message) =>
      domain.runtime.messages.runOnce(message.envelope, { subscription: group, brokerMessageId: message.id, jumpGap: true }, async () => {}),
    name: options.group,
    broker: options.broker,
    stream: options.stream,
    group: options.group,
    consumer: options.consumer,
    settings: options.settings,
    batchSize: options.batchSize,
    tickIntervalMs: options.tickIntervalMs,
    reclaimIdleMs: options.broker.claimIdleMs,
    reclaimIntervalMs: options.reclaimIntervalMs,
    // Read at each use, so a test may replace domain.clock while the subscription runs.
    clock: { now: () => domain.clock.now() },
    logger: options.logger,
  };
}
