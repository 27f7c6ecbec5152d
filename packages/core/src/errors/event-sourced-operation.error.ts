/**
 * Thrown by the repository of an event-sourced aggregate for an operation that needs a row of
 * current state (query, count, delete): the event store keeps streams, loaded by identity.
 */
export class EventSourcedOperationError extends Error {
  constructor(
    readonly aggregate: string,
    readonly operation: string,
  ) {
    super(`${aggregate} is event-sourced: its repository cannot ${operation}; load it by identity with get(id), and build a projection for queries`);
    this.name = 'EventSourcedOperationError';
  }
}
