/**
 * Tells an unreachable NATS (refused, dropped, reconnecting, a request that got no answer) from
 * a refusal of one message. The first kind becomes BrokerUnavailableError, so the outbox pauses
 * instead of failing messages.
 */

const OUTAGE_NAMES = new Set([
  'ConnectionError',
  'ClosedConnectionError',
  'DrainingConnectionError',
  'TimeoutError',
  'NoRespondersError',
  'NatsPullTimeoutError',
  'NatsNotConnectedError',
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

export class NatsNotConnectedError extends Error {
  override readonly name = 'NatsNotConnectedError';
  constructor() {
    super('not connected (NATS is down or restarting; the client reconnects in the background)');
  }
}

export function isNatsConnectionError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  if (OUTAGE_NAMES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  // JetStream answers 503 while it has no leader or no storage (a restart): wait, not fail.
  if (/jetstream (is )?(temporarily )?(not available|unavailable)|no responders/i.test(error.message)) return true;
  return isNatsConnectionError((error as { cause?: unknown }).cause, depth + 1);
}

/** The server refused the credentials: a settings mistake at connect, not an outage. */
export function isNatsAuthError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AuthorizationError' || /authorization violation|authentication/i.test(error.message));
}
