/**
 * Thrown before any I/O when an event store is called with bad arguments (an expected version
 * below -1, an event without a type, a page size of 0): a bug in the caller, never an outage.
 */
export class InvalidEventStoreRequestError extends Error {
  constructor(
    readonly method: string,
    readonly argument: string,
    problem: string,
  ) {
    super(`EventStore.${method}(): ${argument} ${problem}`);
    this.name = 'InvalidEventStoreRequestError';
  }
}
