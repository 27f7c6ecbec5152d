/**
 * Thrown when a `[brokers.<name>]` table in domain.toml holds a value the adapter cannot use;
 * the message names the table, the key and what would be accepted.
 */
export class BrokerSettingsError extends Error {
  constructor(
    readonly brokerName: string,
    readonly key: string,
    problem: string,
  ) {
    super(`[brokers.${brokerName}] ${key}: ${problem}`);
    this.name = 'BrokerSettingsError';
  }
}
