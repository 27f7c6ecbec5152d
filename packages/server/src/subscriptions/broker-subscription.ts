/**
 * A broker subscription: one per `@domain.subscriber`. It reads the subscriber's broker stream
 * (a stream outside the domain's categories, e.g. a payment gateway's callbacks) through a
 * consumer group named after the subscriber and hands each raw envelope to `receive`, inside a
 * unit of work so anything the subscriber changes or raises is committed with the outbox.
 */
import type { BaseSubscriber, Broker, ClassRef, Domain, Logger, StreamSubscriptionConfig } from '@protean-ts/core';
import { ConsumerLoop } from './consumer-loop.js';

export interface BrokerSubscriptionOptions {
  domain: Domain;
  subscriber: ClassRef<BaseSubscriber>;
  group: string;
  stream: string;
  broker: Broker;
  consumer: string;
  settings: StreamSubscriptionConfig;
  batchSize: number;
  tickIntervalMs: number;
  reclaimIntervalMs: number;
  logger: Logger;
}

export function createBrokerSubscription(options: BrokerSubscriptionOptions): ConsumerLoop {
  const { domain, subscriber } = options;
  return new ConsumerLoop({
    name: options.group,
    kind: 'broker',
    broker: options.broker,
    stream: options.stream,
    group: options.group,
    consumer: options.consumer,
    settings: options.settings,
    batchSize: options.batchSize,
    tickIntervalMs: options.tickIntervalMs,
    reclaimIdleMs: options.broker.claimIdleMs,
    reclaimIntervalMs: options.reclaimIntervalMs,
    logger: options.logger,
    handle: async (message) => {
      await domain.runtime.freshUnitOfWork(async () => {
        // A fresh instance per message, like handlers: no state leaks between messages.
        const instance = new subscriber();
        await instance.receive(message.envelope as unknown as Record<string, unknown>);
      });
      return 'handled';
    },
  });
}
