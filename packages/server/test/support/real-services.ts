/**
 * Real-service helpers for integration tests: a throw-away PostgreSQL database per file, a
 * unique Redis stream prefix, and a private redis-server that a test may kill and restart.
 */
import { randomBytes } from 'node:crypto';
import { createTemporaryDatabase, type TemporaryDatabase } from '@protean-ts/conformance/fixtures';

export const REDIS_URI = 'redis://127.0.0.1:6379';

export type TempDatabase = TemporaryDatabase;

/** A database of the file's own (`srv_<random>`), through the shared helper. */
export function createTempDatabase(): Promise<TempDatabase> {
  return createTemporaryDatabase({ label: 'srv' });
}

/** A stream prefix no other test file uses, so files share the Redis server safely. */
export function uniquePrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}:`;
}

export { freePort, startRedisServer, stopProcess } from '@protean-ts/conformance/fixtures';
