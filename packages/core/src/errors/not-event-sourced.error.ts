/**
 * Thrown when a repository of an aggregate stored as rows is asked for something only event
 * sourcing keeps, such as its state at a past version or time: rows hold the current state only.
 */
export class NotEventSourcedError extends Error {
  constructor(
    readonly aggregate: string,
    readonly operation: string,
  ) {
    super(
      `${aggregate} is not event-sourced, so its repository cannot ${operation}; register it with @domain.aggregate({ eventSourced: true }) to keep its history`,
    );
    this.name = 'NotEventSourcedError';
  }
}
