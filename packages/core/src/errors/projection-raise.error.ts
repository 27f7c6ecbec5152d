/** Thrown when code raises an event on a projection: read models are derived from events, not sources of them. */
export class ProjectionRaiseError extends Error {
  constructor(
    readonly projection: string,
    readonly event: string,
  ) {
    super(`${projection} is a projection and cannot raise ${event}; raise events from an aggregate, and let ${projection}'s projector react to them`);
    this.name = 'ProjectionRaiseError';
  }
}
