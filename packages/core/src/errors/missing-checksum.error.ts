/**
 * Thrown when a received envelope carries no checksum although one is required: everything the
 * framework writes is signed, so an unsigned envelope was written by hand, by another producer,
 * or had its checksum stripped. A kind of checksum failure, so it is handled like one.
 */
import { ChecksumMismatchError } from './checksum-mismatch.error.js';

export class MissingChecksumError extends ChecksumMismatchError {
  constructor(messageId: string, messageType: string, actual: string) {
    super(messageId, messageType, '', actual);
    this.message =
      `Message ${messageId} (${messageType}) has no checksum (metadata.envelope.checksum), and unsigned envelopes are refused. ` +
      'Publish messages through the outbox (it signs them), or set [server.stream_subscription] accept_unsigned_envelopes = true ' +
      'to handle envelopes from a producer that does not sign';
    this.name = 'MissingChecksumError';
  }
}
