/**
 * A broker subscription: one per `@domain.subscriber`. It reads the subscriber's broker stream
 * (a stream outside the domain's categories, e.g. a payment gateway's callbacks) through a
 * consumer group named after the subscriber and hands each raw envelope to `receive`, inside a
 * unit of work so anything the subscriber changes or raises is committed with the outbox.
 */
import type { BaseSubscriber, ClassRef } from '@protean-ts/core';
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
    // Like handlers: once per message through the inbox (by position, or by message id for
    // foreign producers), and a lost version race runs again in a fresh unit of work.
    handle: (message, { jumpGap }) =>
      domain.runtime.messages.runOnce(
        message.envelope,
        { subscription: options.group, brokerMessageId: message.id, jumpGap, redelivered: message.deliveryCount > 1 },
        async () => {
          // A fresh instance per message, like handlers: no state leaks between messages.
          const instance = new subscriber();
          await instance.receive(message.envelope as unknown as Record<string, unknown>);
        },
        { name: subscriber.name, kind: 'subscriber' },
      ),
  });
}
