/**
 * Sorts what a broker adapter threw: an outage becomes `BrokerUnavailableError` (callers pause),
 * the port's own errors pass unchanged, anything else is a message-level `BrokerOperationError`.
 */
import { BrokerArgumentError } from './broker-argument.error.js';
import { BrokerBatchError } from './broker-batch.error.js';
import { BrokerCapabilityError } from './broker-capability.error.js';
import { BrokerClosedError } from './broker-closed.error.js';
import { BrokerOperationError } from './broker-operation.error.js';
import { BrokerSettingsError } from '../config/broker-settings.error.js';
import { BrokerUnavailableError } from './broker-unavailable.error.js';

const PASS_THROUGH = [
  BrokerUnavailableError,
  BrokerArgumentError,
  BrokerClosedError,
  BrokerCapabilityError,
  BrokerOperationError,
  BrokerBatchError,
  BrokerSettingsError,
];

/** What the adapter knows about its own errors and target. */
export interface BrokerErrorSource {
  redact(text: string): string;
  isConnectionError(error: unknown): boolean;
  describeTarget(): string;
}

export function translateBrokerError(broker: string, operation: string, err: unknown, source: BrokerErrorSource): Error {
  if (PASS_THROUGH.some((type) => err instanceof type)) return err as Error;
  const detail = source.redact(messageOf(err));
  if (source.isConnectionError(err)) {
    return new BrokerUnavailableError(broker, `cannot ${operation} on ${source.describeTarget()}: ${detail}`, { cause: err });
  }
  return new BrokerOperationError(broker, operation, detail, { cause: err });
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
