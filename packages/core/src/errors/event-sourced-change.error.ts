/**
 * Thrown when an event-sourced aggregate is changed other than through an `@apply` method, or
 * raises an event it has no `@apply` method for: its state must be rebuildable from its events
 * alone, so every change has to be an applied event.
 */
export class EventSourcedChangeError extends Error {
  constructor(
    readonly aggregate: string,
    message: string,
  ) {
    super(message);
    this.name = 'EventSourcedChangeError';
  }
}
