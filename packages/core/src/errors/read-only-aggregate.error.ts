/**
 * Thrown when code raises an event on (or saves) an aggregate loaded as of a past version or
 * time: it shows history, and history does not change. Load it with `get(id)` to change it.
 */
export class ReadOnlyAggregateError extends Error {
  constructor(
    readonly aggregate: string,
    readonly id: string,
    readonly operation: string,
  ) {
    super(
      `${aggregate} "${id}" was loaded as of a past version or time and is read-only: cannot ${operation}; load the current state with repository.get("${id}") to change it`,
    );
    this.name = 'ReadOnlyAggregateError';
  }
}
