/**
 * A stream subscription: one per event handler and per command handler. It reads the handler's
 * stream category through a consumer group named after the handler and runs each message with
 * `domain.handleMessage(envelope, { handler, inbox })`, in a unit of work of its own that also
 * records the message in the inbox, so events the handler raises go through the outbox too and
 * a redelivery is skipped.
 */
import { ChecksumMismatchError, MalformedEnvelopeError, UnknownMessageTypeError, type ClassRef, type Domain } from '@protean-ts/core';
import { ConsumerLoop } from './consumer-loop.js';
import { handledTypes } from './handled-types.js';
import { waitingOutRebuilds } from './projection-rebuild-wait.js';
import { consumerLoopBase, type SubscriptionOptions } from './subscription-options.js';

export interface StreamSubscriptionOptions extends SubscriptionOptions {
  handler: ClassRef;
}

/** Errors no retry can fix: the message is dead-lettered on the first failure. */
export function isPermanentMessageError(error: unknown): boolean {
  return error instanceof MalformedEnvelopeError || error instanceof ChecksumMismatchError || error instanceof UnknownMessageTypeError;
}

/** A handler that asked for a transaction of its own (`ownTransaction: true`) is never batched. */
function ownsTransaction(domain: Domain, handler: ClassRef): boolean {
  const record = domain.registry.recordOf(handler);
  return record !== undefined && 'ownTransaction' in record.options && record.options.ownTransaction === true;
}

export function createStreamSubscription(options: StreamSubscriptionOptions): ConsumerLoop {
  const { domain, handler } = options;
  const handles = handledTypes(domain, handler);
  return new ConsumerLoop({
    ...consumerLoopBase(options),
    kind: 'stream',
    runsHandlerFor: (message) => handles(message.envelope?.metadata?.headers?.type),
    isPermanent: isPermanentMessageError,
    // A command whose sender awaits its outcome learns that it failed for good.
    onGivingUp: (message, error) => domain.runtime.commands.recordGivenUp(message.envelope, error),
    ...(ownsTransaction(domain, handler) ? {} : { batching: { size: options.settings.batch_size, maxWaitMs: options.settings.batch_max_wait_ms } }),
    handle: async (message, { jumpGap, signal }) => {
      if (!handles(message.envelope?.metadata?.headers?.type)) return 'skipped';
      return waitingOutRebuilds(
        () =>
          domain.handleMessage(message.envelope, {
            handler,
            inbox: { subscription: options.group, brokerMessageId: message.id, jumpGap, redelivered: message.deliveryCount > 1 },
          }),
        options.logger,
        signal,
      );
    },
  });
}
