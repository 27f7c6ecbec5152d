/**
 * Thrown by flow control in place of running a handler: the message is neither handled nor
 * failed. The MessageRunner gives it back to the KeyScheduler to try again after `afterMs`, as a
 * fresh first attempt, so a message held while a circuit is open never uses up its retries, is
 * never dead-lettered, and is not acked (stopping gives it back to the broker).
 */
export class MessageHeld extends Error {
  constructor(
    readonly afterMs: number,
    readonly reason: string,
  ) {
    super(`message held by flow control (${reason}); tried again in ${Math.round(afterMs)} ms`);
    this.name = 'MessageHeld';
  }
}
