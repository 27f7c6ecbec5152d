/**
 * A throw-away PostgreSQL database for tests and benchmarks (`@protean-ts/core/temporary-database`).
 * It needs no test runner, so node:test, jest and plain scripts can use it; `@protean-ts/testing`
 * re-exports it for users, `@protean-ts/conformance/fixtures` for the repository's own tests.
 */
export { createTemporaryDatabase, type TemporaryDatabase, type TemporaryDatabaseOptions } from './temporary-database.js';
export { PostgresUnreachableError } from './postgres-unreachable.error.js';
export { LOCAL_POSTGRES, LOCAL_POSTGRES_URI } from './local-postgres.js';
