/**
 * Thrown when events are appended to a stream with an expected version that is not the stream's
 * version: another writer appended first (or the stream exists when -1 said it should not).
 * It is an `ExpectedVersionError`, so the unit of work's conflict retries treat it like any
 * optimistic-concurrency conflict: reload the aggregate and try again.
 */
import { ExpectedVersionError } from './expected-version.error.js';

export class StreamVersionError extends ExpectedVersionError {
  constructor(
    readonly streamName: string,
    expectedVersion: number,
    /** The stream's version when the append was refused; -1 when the stream has no events. */
    actualVersion: number,
  ) {
    super('event stream', streamName, expectedVersion, actualVersion);
    this.name = 'StreamVersionError';
    this.message = StreamVersionError.describeStream(streamName, expectedVersion, actualVersion);
  }

  private static describeStream(stream: string, expected: number, actual: number): string {
    if (expected === -1) return `Event stream "${stream}" already exists (at version ${actual}); append with its version, or without expectedVersion`;
    const found = actual === -1 ? 'the stream has no events' : `its version is ${actual}`;
    return `Event stream "${stream}" was appended to concurrently: expected version ${expected} but ${found}; reload and retry`;
  }
}
