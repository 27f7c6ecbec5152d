/**
 * Thrown before any I/O when a broker method is called with bad arguments (an empty stream
 * name, a count of 0, an envelope without headers): a bug in the caller, never an outage.
 */
export class BrokerArgumentError extends Error {
  constructor(
    readonly brokerName: string,
    readonly method: string,
    readonly argument: string,
    problem: string,
  ) {
    super(`Broker "${brokerName}".${method}(): ${argument} ${problem}`);
    this.name = 'BrokerArgumentError';
  }
}
