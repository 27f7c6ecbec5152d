/**
 * Thrown when a caller uses a feature the broker's provider lacks (reclaim on a broker without
 * RECLAIM_PENDING, …). Callers are meant to ask `broker.has(capability)` first.
 */
import type { BrokerCapabilityName } from './broker.js';

export class BrokerCapabilityError extends Error {
  constructor(
    readonly brokerName: string,
    readonly provider: string,
    readonly capability: BrokerCapabilityName,
    method: string,
  ) {
    super(
      `Broker "${brokerName}" (provider "${provider}") lacks ${capability}, needed by ${method}(); ` +
        `check broker.has('${capability}') first or configure a provider that has it`,
    );
    this.name = 'BrokerCapabilityError';
  }
}
