/**
 * Thrown when an aggregate is saved against a version that is no longer the stored one:
 * another unit of work changed it first (optimistic concurrency). Reload and retry.
 */
export class ExpectedVersionError extends Error {
  constructor(
    readonly aggregate: string,
    readonly id: string,
    readonly expectedVersion: number,
    /** The stored version, or null when the aggregate is not stored (or already exists on insert). */
    readonly actualVersion: number | null,
  ) {
    super(ExpectedVersionError.describe(aggregate, id, expectedVersion, actualVersion));
    this.name = 'ExpectedVersionError';
  }

  private static describe(aggregate: string, id: string, expected: number, actual: number | null): string {
    if (expected === -1) return `${aggregate} "${id}" already exists (stored at version ${actual ?? '?'}); load it and change it instead of adding a new one`;
    const found = actual === null ? 'it is no longer stored' : `the stored version is ${actual}`;
    return `${aggregate} "${id}" was changed concurrently: expected version ${expected} but ${found}; reload it and retry`;
  }
}
