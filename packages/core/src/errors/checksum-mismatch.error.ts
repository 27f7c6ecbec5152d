/**
 * Thrown when a received envelope's checksum does not match its content: the message was
 * altered or corrupted after it was written, so it is refused rather than handled.
 */
export class ChecksumMismatchError extends Error {
  constructor(
    readonly messageId: string,
    readonly messageType: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `Message ${messageId} (${messageType}) failed its checksum: the envelope says ${expected || '(empty)'} but its content hashes to ${actual}; it was altered after it was written`,
    );
    this.name = 'ChecksumMismatchError';
  }
}
