/**
 * Thrown when the broker cannot be reached (refused, reset, timed out, reconnecting, loading).
 * Callers such as the outbox release their work, pause and probe with `ping()` instead of
 * counting the failure against the messages.
 */
export class BrokerUnavailableError extends Error {
  constructor(
    readonly brokerName: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Broker "${brokerName}" is unreachable: ${detail}`, options);
    this.name = 'BrokerUnavailableError';
  }
}
