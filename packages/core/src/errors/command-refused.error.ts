/**
 * The caller's side of a command refused in another process (or earlier, under the same
 * idempotency key): the handler's error cannot travel as itself, so its class name and message
 * are carried over. Catch it and look at `errorName` to tell refusals apart.
 */
export class CommandRefusedError extends Error {
  constructor(
    /** The command's class name. */
    readonly command: string,
    readonly commandId: string,
    /** The class name (`error.name`) of the error its handler threw, e.g. `ValidationError`. */
    readonly errorName: string,
    /** That error's message, unchanged. */
    readonly errorMessage: string,
  ) {
    super(`${command} ${commandId} was refused: ${errorName}: ${errorMessage}`);
    this.name = 'CommandRefusedError';
  }
}
