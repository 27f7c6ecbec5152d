/**
 * Whether a failed `connect()` of a database or broker may succeed if tried again later (the
 * service is down, starting or refusing connections for now), as opposed to a mistake that
 * waiting cannot fix (credentials, a database that does not exist, unusable settings).
 */
import { BrokerUnavailableError } from './broker-unavailable.error.js';

/**
 * Adapters say which is which: a broker throws `BrokerUnavailableError` only for an unreachable
 * server, and a database provider sets `retryable: true` on such errors. Everything else counts
 * as permanent, so an error nobody classified fails fast instead of being waited on forever.
 */
export function isRetryableConnectError(error: unknown): boolean {
  if (error instanceof BrokerUnavailableError) return true;
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}
