/** Test helpers for protean-ts packages and for users' own tests (`@protean-ts/core/testing`). */
export { servicesUp, POSTGRES, REDIS, NATS, RABBITMQ, RABBITMQ_MANAGEMENT, type ServiceCheck } from './service-gate.js';
export { createRabbitmqVhost, deleteRabbitmqVhost, rabbitmqUri, RABBITMQ_HOST_URI, RABBITMQ_MANAGEMENT_URI } from './rabbitmq-vhost.js';
export { describeBrokerConformance, type BrokerConformanceOptions, type MakeBroker } from './broker-conformance.js';
// The conformance suites import vitest: only import them from test files.
export { describeOutboxStoreConformance, type OutboxConformanceHarness } from './outbox-store-conformance.js';
export { RowFactory, conformanceEnvelope } from './outbox-conformance-fixtures.js';
export { sampleBrokerEnvelope } from './broker-conformance-fixtures.js';
export { describeAggregateDaoConformance, type DaoConformanceHarness } from './aggregate-dao-conformance.js';
export { conformanceModel } from './dao-conformance-model.js';
export { freePort, startRedisServer, stopProcess, type RedisServerOptions } from './redis-server-process.js';
export { describeInboxStoreConformance, type InboxConformanceHarness } from './inbox-store-conformance.js';
export { describeEventStoreConformance, type EventStoreConformanceHarness } from './event-store-conformance.js';
