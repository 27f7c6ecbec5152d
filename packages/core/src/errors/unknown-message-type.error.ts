/**
 * Thrown when an envelope names a message type this domain has not registered (a typo, a
 * version not deployed yet, or a message meant for another domain).
 */
export class UnknownMessageTypeError extends Error {
  constructor(
    readonly messageType: string,
    readonly domainName: string,
    readonly known: readonly string[],
  ) {
    const list = known.length ? known.join(', ') : 'none';
    super(
      `Domain "${domainName}" has no event or command registered as "${messageType}" (registered: ${list}); register it with @domain.event/@domain.command`,
    );
    this.name = 'UnknownMessageTypeError';
  }
}
