/**
 * The RabbitMQ management API (`management_uri`) could not be read: unreachable, credentials
 * refused, or not the API at all. A settings error, so it names the key and the fix; the base
 * broker passes it through untranslated.
 */
import { BrokerSettingsError } from '@protean-ts/core';

export class RabbitMQManagementError extends BrokerSettingsError {
  constructor(brokerName: string, problem: string, options?: { cause?: unknown }) {
    super(brokerName, 'management_uri', problem);
    this.name = 'RabbitMQManagementError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
