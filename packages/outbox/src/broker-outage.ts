/**
 * Tells a broker outage (pause, probe, consume no attempt) from a message-level failure (count an
 * attempt). Only the port's outage errors qualify; matching by name as well keeps this right when
 * two copies of @protean-ts/core end up in one process.
 */
import { BrokerClosedError, BrokerUnavailableError } from '@protean-ts/core';

const OUTAGE_NAMES = new Set(['BrokerUnavailableError', 'BrokerClosedError']);

export function isBrokerOutage(error: unknown): boolean {
  if (error instanceof BrokerUnavailableError || error instanceof BrokerClosedError) return true;
  return error instanceof Error && OUTAGE_NAMES.has(error.name);
}
