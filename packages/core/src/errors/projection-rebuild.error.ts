/** Thrown when a projection cannot be rebuilt: what stands in the way, and what to do instead. */
export class ProjectionRebuildError extends Error {
  constructor(
    readonly projection: string,
    readonly reason: string,
  ) {
    super(`cannot rebuild ${projection}: ${reason}`);
    this.name = 'ProjectionRebuildError';
  }
}
