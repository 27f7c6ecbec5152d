/**
 * A broker subscription: one per `@domain.subscriber`. It reads the subscriber's broker stream
 * (a stream outside the domain's categories, e.g. a payment gateway's callbacks) through a
 * consumer group named after the subscriber and hands each raw envelope to `receive`, inside a
 * unit of work so anything the subscriber changes or raises is committed with the outbox.
 */
import { retryOnConflict, type BaseSubscriber, type ClassRef } from '@protean-ts/core';
import { ConsumerLoop } from './consumer-loop.js';
import { consumerLoopBase, type SubscriptionOptions } from './subscription-options.js';

export interface BrokerSubscriptionOptions extends SubscriptionOptions {
  subscriber: ClassRef<BaseSubscriber>;
}

export function createBrokerSubscription(options: BrokerSubscriptionOptions): ConsumerLoop {
  const { domain, subscriber } = options;
  return new ConsumerLoop({
    ...consumerLoopBase(options),
    kind: 'broker',
    handle: async (message) => {
      // Like handlers: a lost version race runs again in a fresh unit of work (reloading state).
      await retryOnConflict(() =>
        domain.runtime.freshUnitOfWork(async () => {
          // A fresh instance per message, like handlers: no state leaks between messages.
          const instance = new subscriber();
          await instance.receive(message.envelope as unknown as Record<string, unknown>);
        }),
      );
      return 'handled';
    },
  });
}
