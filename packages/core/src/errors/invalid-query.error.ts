/**
 * Thrown when a repository query names a field the aggregate does not have, an unknown filter
 * operator, or a bad limit/offset; it names the aggregate and what to change.
 */
export class InvalidQueryError extends Error {
  constructor(
    readonly aggregate: string,
    readonly problem: string,
  ) {
    super(`Invalid query on ${aggregate}: ${problem}`);
    this.name = 'InvalidQueryError';
  }
}
