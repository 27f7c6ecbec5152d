/**
 * The test helpers that need no test runner (`@protean-ts/conformance/fixtures`): nothing here
 * imports vitest or fast-check, so node:test, jest and plain scripts such as the benchmarks can
 * use them. `@protean-ts/conformance` re-exports all of it next to the vitest conformance suites.
 */
export { servicesUp, POSTGRES, REDIS, NATS, RABBITMQ, RABBITMQ_MANAGEMENT, type ServiceCheck } from './services/service-gate.js';
export {
  createTemporaryDatabase,
  LOCAL_POSTGRES_URI,
  PostgresUnreachableError,
  type TemporaryDatabase,
  type TemporaryDatabaseOptions,
} from '@protean-ts/core/temporary-database';
export { createRabbitmqVhost, deleteRabbitmqVhost, rabbitmqUri, RABBITMQ_HOST_URI, RABBITMQ_MANAGEMENT_URI } from './services/rabbitmq-vhost.js';
export { freePort, startRedisServer, stopProcess, type RedisServerOptions } from './services/redis-server-process.js';
export { makeBank, InsufficientFunds, type Bank, type BankAccount, type BankMovement, type BankOpened, type BankOptions } from './domains/bank-domain.js';
export { makeUpcastingBank, type UpcasterStep, type UpcastingBank, type UpcastingBankAccount, type UpcastingBankDeposited } from './domains/upcasting-bank.js';
