/** Thrown when a store method gets an argument it cannot use; names the method, the argument and the fix. */
export class InvalidOutboxRequestError extends Error {
  constructor(
    readonly method: string,
    readonly argument: string,
    readonly problem: string,
  ) {
    super(`PostgreSQL outbox ${method}: ${argument} ${problem}`);
    this.name = 'InvalidOutboxRequestError';
  }
}
