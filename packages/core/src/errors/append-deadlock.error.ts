/**
 * Two transactions appended to the same streams in opposite orders, and the database broke the
 * lock cycle by aborting this one (PostgreSQL's deadlock detection). Nothing is wrong with the
 * events: it is a concurrency conflict like a version mismatch, so it is a `StreamVersionError`
 * and the unit of work's conflict retries reload and run again.
 */
import { StreamVersionError } from './stream-version.error.js';

export class AppendDeadlockError extends StreamVersionError {
  constructor(
    streamName: string,
    expectedVersion: number | undefined,
    override readonly cause: unknown,
  ) {
    super(streamName, expectedVersion ?? -1, -1);
    this.name = 'AppendDeadlockError';
    this.message =
      `Appending to event stream "${streamName}" was aborted: another transaction appended to the same streams in the opposite order ` +
      'and the database broke the deadlock by aborting this one; reload and retry (handlers and retryOnConflict do it themselves)';
  }
}
