/**
 * Thrown when a broker is used after `close()`. Unlike an outage it never heals: the caller
 * holds a broker its owner shut down, so it must get the current one (or stop).
 */
export class BrokerClosedError extends Error {
  constructor(
    readonly brokerName: string,
    readonly method: string,
  ) {
    super(`Broker "${brokerName}" is closed; ${method}() cannot be called after close()`);
    this.name = 'BrokerClosedError';
  }
}
