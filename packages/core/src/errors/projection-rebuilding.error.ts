/**
 * Thrown in a projector's unit of work while its projection is being rebuilt: the projector
 * writes nothing, and its subscription waits until the rebuild ends (`protean-ts projection
 * status` shows it; an interrupted rebuild is finished by running it again).
 */
export class ProjectionRebuildingError extends Error {
  constructor(
    readonly projection: string,
    readonly projector: string,
  ) {
    super(
      `${projection} is being rebuilt, so ${projector} waits; it resumes when the rebuild ends (if the rebuild was interrupted, run protean-ts projection rebuild ${projection} again)`,
    );
    this.name = 'ProjectionRebuildingError';
  }
}
