/**
 * A message-level failure reported by the broker (a key of the wrong type, an oversized
 * message, a value that cannot be serialised). The broker itself is reachable, so callers fail
 * the message rather than pausing; `cause` holds the adapter's own error.
 */
export class BrokerOperationError extends Error {
  constructor(
    readonly brokerName: string,
    readonly operation: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Broker "${brokerName}" failed to ${operation}: ${detail}`, options);
    this.name = 'BrokerOperationError';
  }
}
