/**
 * Awaiting a command's outcome took longer than the caller allowed. The command was queued and
 * is not cancelled: it may still run (a server may be down, busy, or retrying it).
 */
export class OutcomeTimeoutError extends Error {
  constructor(
    readonly command: string,
    readonly commandId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `${command} ${commandId}: no outcome within ${timeoutMs} ms; the command is queued and may still run ` +
        '(is `protean-ts server` running and handling it?); do not assume it failed',
    );
    this.name = 'OutcomeTimeoutError';
  }
}
