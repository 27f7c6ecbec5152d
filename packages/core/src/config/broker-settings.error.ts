/**
 * Thrown when a `[brokers.<name>]` table in domain.toml holds a value the adapter cannot use;
 * the message names the table, the key and what would be accepted, with any secret masked.
 */
import { maskText } from './mask-secrets.js';

export class BrokerSettingsError extends Error {
  constructor(
    readonly brokerName: string,
    readonly key: string,
    problem: string,
  ) {
    super(maskText(`[brokers.${brokerName}] ${key}: ${problem}`));
    this.name = 'BrokerSettingsError';
  }
}
