/**
 * A claimed batch's publish as one `protean.outbox.publish` span. The batch mixes messages from
 * many traces, so the span starts a trace of its own and links each message's producing context
 * (the W3C headers stored with it in the outbox row) instead of choosing one parent.
 */
import { SpanKind, type Link } from '@opentelemetry/api';
import { inSpan, linkFromHeaders, PROTEAN_MESSAGING_SYSTEM, recordFailure, SpanAttributes, SpanNames, type Broker, type OutboxRow } from '@protean-ts/core';
import { publishClaimed, type PublishOutcome } from './publish-claimed.js';

export interface PublishingProcessor {
  name: string;
  targetBroker: string;
  /** Stream partitions on the target broker (`outbox.partitions`; 1 for an external broker). */
  partitions: number;
}

export function publishTraced(processor: PublishingProcessor, broker: Broker, rows: readonly OutboxRow[]): Promise<PublishOutcome> {
  const spec = () => ({
    kind: SpanKind.PRODUCER,
    links: rows.map((row) => linkFromHeaders(row.envelope.metadata?.headers)).filter((link): link is Link => link !== undefined),
    attributes: {
      [SpanAttributes.messagingSystem]: PROTEAN_MESSAGING_SYSTEM,
      [SpanAttributes.messagingOperationType]: 'send',
      [SpanAttributes.messagingBatchCount]: rows.length,
      [SpanAttributes.outboxProcessor]: processor.name,
      [SpanAttributes.broker]: processor.targetBroker,
    },
  });
  return inSpan(SpanNames.outboxPublish, spec, async (span) => {
    const outcome = await publishClaimed(broker, rows, processor.partitions);
    if (span) {
      span.setAttributes({
        [SpanAttributes.published]: outcome.published.length,
        [SpanAttributes.failed]: outcome.failed.length,
        [SpanAttributes.unsent]: outcome.unsent.length,
      });
      // Failures are sorted, not thrown: the span still says the batch did not all go out.
      const failure = outcome.outage ?? outcome.failed[0]?.error;
      if (failure) recordFailure(span, failure);
    }
    return outcome;
  });
}
