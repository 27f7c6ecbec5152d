export {};
export * from './config/index.js';
export * from './logging/index.js';
export { registerDatabaseProvider, registerBroker, knownAdapterKinds, LAZY_ADAPTER_PACKAGES } from './adapters/registry.js';
export { ExpectedVersionError } from './errors/expected-version.error.js';
export { ObjectNotFoundError } from './errors/object-not-found.error.js';
export { HandlerNotFoundError } from './errors/handler-not-found.error.js';
export { ChecksumMismatchError } from './errors/checksum-mismatch.error.js';
export { UnknownMessageTypeError } from './errors/unknown-message-type.error.js';
export { MalformedEnvelopeError } from './errors/malformed-envelope.error.js';
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
  type BrokerSettings,
  type DeadLetter,
  type OutgoingMessage,
  type ReadOptions,
  type ReceivedMessage,
} from './ports/broker.js';
export { BaseBroker, DEFAULT_DEAD_LETTER_LIST_COUNT, type BrokerState } from './ports/base-broker.js';
export { BrokerSettingsReader } from './ports/broker-settings-reader.js';
export { BrokerUnavailableError } from './ports/broker-unavailable.error.js';
export { BrokerArgumentError } from './ports/broker-argument.error.js';
export { BrokerCapabilityError } from './ports/broker-capability.error.js';
export { BrokerClosedError } from './ports/broker-closed.error.js';
export { BrokerOperationError } from './ports/broker-operation.error.js';
export { BrokerBatchError, type PublishResult } from './ports/broker-batch.error.js';
export { BrokerSettingsError } from './ports/broker-settings.error.js';
export { InlineBroker, INLINE_DEFAULT_MAXLEN } from './adapters/inline/index.js';
