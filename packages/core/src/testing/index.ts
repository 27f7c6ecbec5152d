/** Test helpers for protean-ts packages and for users' own tests (`@protean-ts/core/testing`). */
export { servicesUp, POSTGRES, REDIS, type ServiceCheck } from './service-gate.js';
export { describeBrokerConformance, type BrokerConformanceOptions, type MakeBroker } from './broker-conformance.js';
