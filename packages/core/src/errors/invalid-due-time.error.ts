/** A due time (`deliverAt`, `scheduleTimeout({ at })`) that is not a valid Date, or one given where it cannot apply. */
export class InvalidDueTimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDueTimeError';
  }
}
