/**
 * Thrown when an event-store stream or category name does not follow
 * `<domain>::<category>-<id>` (or `<domain>::<category>`, `$all` for readers): the store would
 * file such events where no category reader finds them.
 */
export class InvalidStreamNameError extends Error {
  constructor(
    readonly streamName: string,
    problem: string,
  ) {
    super(`Invalid event stream name ${JSON.stringify(streamName)}: ${problem}`);
    this.name = 'InvalidStreamNameError';
  }
}
