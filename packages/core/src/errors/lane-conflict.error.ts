/**
 * A lane was named for work that joins a unit of work in another lane: the unit's events are
 * written together at its commit, in one lane, so the lane is chosen where the outermost unit starts.
 */
export class LaneConflictError extends Error {
  constructor(
    readonly lane: string,
    readonly unitLane: string | undefined,
  ) {
    super(
      `lane "${lane}" was asked for inside a unit of work ${unitLane === undefined ? 'that names no lane' : `in lane "${unitLane}"`}; ` +
        'a unit of work has one lane: name it where the outermost unit starts (domain.uow(work, { lane }) or domain.process(cmd, { lane }))',
    );
    this.name = 'LaneConflictError';
  }
}
