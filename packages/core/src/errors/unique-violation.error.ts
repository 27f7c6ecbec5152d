/** Thrown when saving an aggregate would duplicate a value of a field declared `unique: true`. */
export class UniqueViolationError extends Error {
  constructor(
    readonly aggregate: string,
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`${aggregate}.${field} must be unique: another ${aggregate} already has ${JSON.stringify(value)}`);
    this.name = 'UniqueViolationError';
  }
}
