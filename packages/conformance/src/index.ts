/**
 * The port conformance suites (`@protean-ts/conformance`): every adapter of a port runs the same
 * vitest suite, in this repository and in an adapter author's own, plus the test helpers below.
 */
// The helpers that need no test runner (also `@protean-ts/conformance/fixtures`): service gate,
// temporary database, RabbitMQ vhost, private redis-server, the bank domain.
export * from './fixtures.js';
export { describeBrokerConformance, type BrokerConformanceOptions, type MakeBroker } from './broker/broker-conformance.js';
// The conformance suites import vitest: only import them from test files.
export { describeOutboxStoreConformance, type OutboxConformanceHarness } from './outbox/outbox-store-conformance.js';
export { RowFactory, conformanceEnvelope } from './outbox/outbox-conformance-fixtures.js';
export { sampleBrokerEnvelope } from './broker/broker-conformance-fixtures.js';
export { describeAggregateDaoConformance, type DaoConformanceHarness } from './aggregate-dao/aggregate-dao-conformance.js';
export { conformanceModel } from './aggregate-dao/dao-conformance-model.js';
export { describeInboxStoreConformance, type InboxConformanceHarness } from './inbox/inbox-store-conformance.js';
export { describeEventStoreConformance, type EventStoreConformanceHarness } from './event-store/event-store-conformance.js';
export { describeEventStoreReaderProperty, type EventStorePropertyHarness } from './event-store/event-store-conformance-property.js';
// Runs and seed of fast-check properties (FC_RUNS, FC_SEED), per test tier.
export { propertyRun, propertyRuns, propertySeed, type PropertyDefaults, type PropertyRun, type PropertyTier } from './property-settings.js';
export { captureLogsPerTest } from './captured-logs.js';
export { describePartitionLeaseConformance, type PartitionLeaseConformanceHarness } from './partition-leases/partition-lease-conformance.js';
