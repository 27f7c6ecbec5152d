export {};
export * from './config/index.js';
export * from './logging/index.js';
export { registerDatabaseProvider, registerBroker, type RegisterProviderOptions } from './adapters/registry.js';
export { knownAdapterKinds, importAdapterPackages, LAZY_ADAPTER_PACKAGES } from './config/provider-kinds.js';
export { ExpectedVersionError } from './errors/expected-version.error.js';
export { ObjectNotFoundError } from './errors/object-not-found.error.js';
export { HandlerNotFoundError } from './errors/handler-not-found.error.js';
export { ChecksumMismatchError } from './errors/checksum-mismatch.error.js';
export { UnknownMessageTypeError } from './errors/unknown-message-type.error.js';
export { MalformedEnvelopeError } from './errors/malformed-envelope.error.js';
export { MissingChecksumError } from './errors/missing-checksum.error.js';
export { UnknownProviderError } from './errors/unknown-provider.error.js';
export { AdapterLoadError } from './errors/adapter-load.error.js';
export { DomainNotInitializedError } from './errors/domain-not-initialized.error.js';
export { UniqueViolationError } from './errors/unique-violation.error.js';
export { TransactionStateError } from './errors/transaction-state.error.js';
export {
  BrokerCapability,
  type Broker,
  type BrokerCapabilityName,
  type BrokerFactory,
  type BrokerInfo,
  type DeadConsumerReclaimOptions,
  type DeadLetter,
  type GroupProgress,
  type GroupStatus,
  type GroupLag,
  type OutgoingMessage,
  type ReadOptions,
  type ReceivedMessage,
} from './ports/broker.js';
export { BaseBroker, DEFAULT_DEAD_LETTER_LIST_COUNT, DEFAULT_CLAIM_IDLE_MS, DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS, type BrokerState } from './ports/base-broker.js';
export { BrokerSettingsReader, COMMON_BROKER_KEYS } from './config/broker-settings-reader.js';
export { systemClock, type Clock } from './ports/clock.js';
export { BrokerUnavailableError } from './ports/broker-unavailable.error.js';
export { isRetryableConnectError } from './ports/retryable-connect-error.js';
export { BrokerArgumentError } from './ports/broker-argument.error.js';
export { BrokerCapabilityError } from './ports/broker-capability.error.js';
export { BrokerClosedError } from './ports/broker-closed.error.js';
export { BrokerOperationError } from './ports/broker-operation.error.js';
export { BrokerBatchError, type PublishResult } from './ports/broker-batch.error.js';
export { BrokerSettingsError } from './config/broker-settings.error.js';
export { InlineBroker, INLINE_DEFAULT_MAXLEN } from './adapters/inline/index.js';
// domain model: fields, elements, registry (core-model)
export { field, type TypedFieldDecorator } from './fields/field-decorators.js';
export type * from './fields/field-definition.js';
export { fieldsOf, fieldMapOf, identityFieldOf, IMPLICIT_ID } from './fields/field-metadata.js';
export { ValidationError, type FieldErrors } from './errors/validation.error.js';
export { ImmutableElementError } from './errors/immutable-element.error.js';
export { DomainModelError } from './errors/domain-model.error.js';
export { RegistrationError } from './errors/registration.error.js';
export { FieldDeclarationError } from './errors/field-declaration.error.js';
export { DecoratorSettingsError } from './errors/decorator-settings.error.js';
export type { ElementKind } from './elements/element-kind.js';
export type * from './elements/element-options.js';
export { BaseDataElement } from './elements/base-data-element.js';
export { BaseAggregate, markPersisted, type AggregateClass } from './elements/base-aggregate.js';
export { BaseEntity } from './elements/base-entity.js';
export { BaseValueObject } from './elements/base-value-object.js';
export { BaseMessage } from './elements/base-message.js';
export { BaseEvent } from './elements/base-event.js';
export { BaseCommand } from './elements/base-command.js';
export { BaseCommandHandler } from './elements/base-command-handler.js';
export { BaseEventHandler } from './elements/base-event-handler.js';
export { BaseApplicationService } from './elements/base-application-service.js';
export { BaseRepository, BIND_REPOSITORY } from './repository/base-repository.js';
export { BaseSubscriber } from './elements/base-subscriber.js';
export { BaseProjection } from './elements/base-projection.js';
export { BaseProjector } from './elements/base-projector.js';
export { on } from './elements/on.js';
export { ProjectionView } from './repository/projection-view.js';
export { ProjectionRaiseError } from './errors/projection-raise.error.js';
export { ReadOnlyViewError } from './errors/read-only-view.error.js';
export { ProjectionRebuildingError } from './errors/projection-rebuilding.error.js';
export { ProjectionRebuildError } from './errors/projection-rebuild.error.js';
export {
  rebuildProjection,
  projectionNamed,
  whyNotRebuildable,
  DEFAULT_REBUILD_BATCH,
  type RebuildOptions,
  type RebuildProgress,
  type RebuildSummary,
} from './processing/projection-rebuild.js';
export { committedPages, HELD_BACK_WARN_AFTER_MS, type CommittedPagesOptions } from './processing/committed-pages.js';
export type { ProjectionState, ProjectionStatusStore } from './ports/projection-status-store.js';
export { handle, handleMarksOf, type HandleMark } from './elements/handle.js';
export { apply, applyMarksOf, type ApplyMark } from './elements/apply.js';
export type { Upcaster, UpcasterOptions, UpcasterClass } from './elements/upcaster.js';
export { MissingUpcasterError } from './errors/missing-upcaster.error.js';
export { InvalidUpcastResultError } from './errors/invalid-upcast-result.error.js';
export { UpcasterFailedError } from './errors/upcaster-failed.error.js';
export { ReadOnlyAggregateError } from './errors/read-only-aggregate.error.js';
export { EventSourcedChangeError } from './errors/event-sourced-change.error.js';
export { EventSourcedOperationError } from './errors/event-sourced-operation.error.js';
export { invariant, invariantsOf, checkInvariants, type InvariantPhase } from './elements/invariant.js';
export type { CreateProps, CreateArgs, PropInput } from './elements/create-props.js';
export type { ElementConstructor } from './elements/element-builder.js';
export type { FromPlainOptions } from './elements/element-hooks.js';
export type { ElementHost, MessageContext, MessageTypeInfo } from './elements/element-host.js';
export { buildMessageMetadata, withMetadata, type MetadataInput } from './elements/message-metadata.js';
export { Domain, type ElementDecorator } from './domain/domain.js';
export type { DomainOptions } from './domain/domain-options.js';
export { ElementRegistry, type HandlerBinding, type RegistryOptions } from './registry/registry.js';
export type * from './registry/element-record.js';
export { defaultStreamCategory, type ElementOptionsByKind } from './registry/element-defaults.js';
export { snakeCase } from './registry/naming.js';
export { InvalidQueryError } from './errors/invalid-query.error.js';
export { InvalidOutboxRowError } from './errors/invalid-outbox-row.error.js';
export { DuplicateOutboxMessageError } from './errors/duplicate-outbox-message.error.js';
export { MessageWithoutMetadataError } from './errors/message-without-metadata.error.js';
export { AsyncCommandsNeedOutboxError } from './errors/async-commands-need-outbox.error.js';
export { CommandDatabaseError } from './errors/command-database.error.js';
export * from './messages/index.js';
export { stampCommand } from './elements/stamp-command.js';
export * from './messages/cloudevents/index.js';
export { CloudEventSubscriber, onCloudEvent, cloudEventTypesOf, cloudEventHandlersOf, type CloudEventContext } from './elements/cloud-event-subscriber.js';
export { UnhandledCloudEventTypeError } from './errors/unhandled-cloud-event-type.error.js';
export { currentUnitOfWork } from './uow/uow-storage.js';
export { runInBatch, claimBatch, type BatchClaim, type BatchMembership } from './uow/batch-scope.js';
export { UnitOfWork, type UnitOfWorkHost, type TrackedAggregate } from './uow/unit-of-work.js';
export { outboxRowsForEvents, type AggregateEvents } from './uow/outbox-rows.js';
export { Repository, type RepositoryHost, type AsOfOptions } from './repository/repository.js';
export { NotEventSourcedError } from './errors/not-event-sourced.error.js';
export { EventSourcedRepository, type EventSourcedRepositoryHost } from './repository/event-sourced-repository.js';
export { aggregateStreamName, envelopeOf } from './repository/aggregate-stream.js';
export type { InitOptions } from './runtime/init-options.js';
export type {
  RuntimeSurface,
  RuntimeInfrastructure,
  RuntimeMessages,
  RuntimeCommands,
  RuntimeUnits,
  RuntimeEvents,
  RuntimeProjections,
  CommittedEventsListener,
  InboxPlace,
} from './runtime/runtime-surface.js';
export type { ProcessOptions } from './processing/command-processor.js';
export type { UnitOfWorkOptions } from './uow/run-in-unit-of-work.js';
export { OUTCOME_EXTENSION } from './processing/command-outcomes.js';
export type * from './ports/command-outcome-store.js';
export { CommandRefusedError } from './errors/command-refused.error.js';
export { OutcomeTimeoutError } from './errors/outcome-timeout.error.js';
export { InvalidProcessOptionsError } from './errors/invalid-process-options.error.js';
export { UnknownLaneError } from './errors/unknown-lane.error.js';
export { LaneConflictError } from './errors/lane-conflict.error.js';
export type { HandleMessageOptions, HandleOutcome } from './processing/message-handling.js';
export {
  MemoryProvider,
  MemoryOutboxStore,
  MemoryInboxStore,
  MemoryCommandOutcomeStore,
  MemoryEventStore,
  MemoryTransaction,
} from './adapters/memory/index.js';
export { validateOutboxRows } from './adapters/memory/outbox-row-checks.js';
export type * from './ports/aggregate-dao.js';
export type * from './ports/database-provider.js';
export type * from './ports/outbox-store.js';
export type * from './ports/abandoned-message.js';
export { retryOnConflict, isConcurrencyConflict, DEFAULT_CONFLICT_RETRY, type ConflictRetryPolicy } from './processing/retry-on-conflict.js';
export type * from './ports/inbox-store.js';
export { eventStoreInboxName } from './ports/inbox-store.js';
// The event store (issue 11): the port, its records and stream naming.
export { EventStore, type StreamRead, type CategoryRead } from './ports/event-store.js';
export {
  START_CURSOR,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  cursorOf,
  type NewEvent,
  type StoredEvent,
  type ReaderCursor,
  type AppendOptions,
  type AppendResult,
  type StreamReadOptions,
  type CategoryReadOptions,
  type CategoryPage,
  type NewSnapshot,
  type SaveSnapshotOptions,
  type SealedSnapshot,
  type Snapshot,
} from './ports/event-store-records.js';
export { MAX_LEASE_MS, type EventStoreSubscriptions, type EventStoreSubscriptionState, type EventStoreDeadLetter } from './ports/event-store-subscriptions.js';
export { MemoryEventStoreSubscriptions } from './adapters/memory/memory-event-store-subscriptions.js';
export { assignedPartitions, type PartitionLeaseStore, type PartitionLease, type PartitionClaim } from './ports/partition-leases.js';
export { MemoryPartitionLeases } from './adapters/memory/memory-partition-leases.js';
export { partitionOf, partitionStream, partitionStreams, PARTITION_SEPARATOR } from './messages/stream-partitions.js';
export { checkedLane, lanePriority, lanesRead, laneStream, LANE_NAME, LIVE_LANE } from './messages/lanes.js';
export { snapshotChecksum } from './ports/snapshot-checksum.js';
export { streamName, categoryOf, isEntityStream, isCategory, ALL_STREAMS } from './ports/stream-names.js';
export { StreamVersionError } from './errors/stream-version.error.js';
export { AppendDeadlockError } from './errors/append-deadlock.error.js';
export { InboxCheckpointMovedError } from './errors/inbox-checkpoint-moved.error.js';
export { InvalidStreamNameError } from './errors/invalid-stream-name.error.js';
export { InvalidEventStoreRequestError } from './errors/invalid-event-store-request.error.js';
export { PermanentError, markPermanent, isPermanentError } from './errors/permanent-error.js';
// Queries, query handlers, domain services and use cases (issue 12).
export { BaseQuery, type QueryResult } from './elements/base-query.js';
export { BaseQueryHandler } from './elements/base-query-handler.js';
export { read, readMarksOf, type ReadMark } from './elements/read.js';
export { BaseDomainService } from './elements/base-domain-service.js';
export { useCase } from './elements/use-case.js';

// --- process managers and due times ---
export { BaseProcessManager } from './elements/base-process-manager.js';
export type { HandleOptions } from './elements/handle.js';
export { ProcessManagerUsageError } from './errors/process-manager-usage.error.js';
export { InvalidDurationError } from './errors/invalid-duration.error.js';
export { InvalidDueTimeError } from './errors/invalid-due-time.error.js';
export { parseDuration } from './process-managers/parse-duration.js';
export {
  processManagerStream,
  timeoutKeyPrefix,
  type ProcessManagerTransition,
  type ProcessManagerOutcome,
} from './process-managers/process-manager-runner.js';
export { deferredPartitionKey } from './processing/command-outbox-row.js';
export {
  SpanNames,
  SpanAttributes,
  PROTEAN_MESSAGING_SYSTEM,
  tracingEnabled,
  inSpan,
  recordFailure,
  linkFromHeaders,
  flushTracing,
  type SpanSpec,
} from './tracing/index.js';
