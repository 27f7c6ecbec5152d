/**
 * The names of the spans protean-ts starts and the attribute keys it sets on them, in one place
 * so code, tests and docs/observability.md agree.
 */
export const SpanNames = {
  commandProcess: 'protean.command.process',
  uowCommit: 'protean.uow.commit',
  outboxPublish: 'protean.outbox.publish',
  brokerPublish: 'protean.broker.publish',
  handlerExecute: 'protean.handler.execute',
  eventStoreAppend: 'protean.event_store.append',
} as const;

/** OpenTelemetry messaging semantic-convention keys, and protean-ts's own. */
export const SpanAttributes = {
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingDestinationName: 'messaging.destination.name',
  messagingMessageId: 'messaging.message.id',
  messagingConversationId: 'messaging.message.conversation_id',
  messagingBatchCount: 'messaging.batch.message_count',
  messagingConsumerGroup: 'messaging.consumer.group.name',
  domain: 'protean.domain',
  messageType: 'protean.message.type',
  command: 'protean.command',
  processing: 'protean.command.processing',
  handler: 'protean.handler',
  handlerKind: 'protean.handler.kind',
  handlerOutcome: 'protean.handler.outcome',
  aggregate: 'protean.aggregate',
  stream: 'protean.stream',
  expectedVersion: 'protean.event_store.expected_version',
  eventCount: 'protean.event_count',
  unitOfWork: 'protean.uow.id',
  broker: 'protean.broker',
  outboxProcessor: 'protean.outbox.processor',
  published: 'protean.outbox.published',
  failed: 'protean.outbox.failed',
  unsent: 'protean.outbox.unsent',
} as const;

/** `messaging.system` of the spans the framework itself starts (brokers set their provider). */
export const PROTEAN_MESSAGING_SYSTEM = 'protean';
