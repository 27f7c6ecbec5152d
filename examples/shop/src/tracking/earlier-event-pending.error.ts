/**
 * Thrown by a projector that received an event before an earlier event of the same aggregate.
 * With several workers, two events of one order can be handled at the same time by different
 * processes; throwing makes the server retry the later one until the earlier one is in.
 */
export class EarlierEventPending extends Error {
  constructor(
    readonly stream: string,
    readonly expectedPosition: number,
    readonly receivedPosition: number,
  ) {
    super(`${stream}: received the event at position ${receivedPosition} before the one at ${expectedPosition}; retrying it later`);
    this.name = 'EarlierEventPending';
  }
}
