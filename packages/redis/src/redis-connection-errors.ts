/**
 * Tells an unreachable Redis (socket errors, a reconnecting client, a server still loading or
 * failing over) from a reply about one message. The first kind becomes BrokerUnavailableError,
 * so the outbox pauses instead of failing messages.
 */

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ECONNABORTED',
  'ERR_SOCKET_CLOSED',
]);

// ioredis's own words for "no usable connection right now".
const CLIENT_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Command timed out',
  'Socket timeout',
  'Redis is already connecting',
  'Reached the max retries per request limit',
  'connect ETIMEDOUT',
];

// Replies meaning the server cannot serve anyone at the moment (not this message's fault).
const SERVER_STATES = ['LOADING', 'BUSY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'READONLY', 'NOAUTH', 'WRONGPASS', 'OOM', 'MISCONF'];

export const NOT_READY_CODE = 'PROTEAN_REDIS_NOT_READY';

/** The error thrown while ioredis is still (re)connecting on its own. */
export function notReadyError(status: string): Error {
  return Object.assign(new Error(`the connection is ${status} (Redis is down or restarting; retrying in the background)`), {
    code: NOT_READY_CODE,
  });
}

export function isRedisConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === NOT_READY_CODE || (typeof code === 'string' && SOCKET_CODES.has(code))) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (CLIENT_MESSAGES.some((text) => error.message.includes(text))) return true;
  if (error.name === 'ReplyError') return SERVER_STATES.some((state) => error.message.startsWith(state));
  return false;
}

/**
 * Redis refused the connection's credentials. While running this is treated as an outage (an
 * ACL being changed); at connect it is a settings mistake that retrying cannot fix.
 */
export function isRedisCredentialsError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError' && /^(NOAUTH|WRONGPASS)\b|^ERR invalid password/.test(error.message);
}

/** ioredis's terse outage messages in words an operator can act on; other errors unchanged. */
export function explainRedisError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (error.message.includes("Stream isn't writeable")) {
    const text = 'not connected (Redis is down or restarting; retrying in the background)';
    return Object.assign(new Error(text, { cause: error }), { code: NOT_READY_CODE });
  }
  if (error.name === 'MaxRetriesPerRequestError') {
    const text = 'the connection dropped while the command was in flight (Redis may or may not have applied it)';
    return Object.assign(new Error(text, { cause: error }), { code: NOT_READY_CODE });
  }
  return error;
}

/** Redis's answer to SELECT of a database index the server does not have (`databases` in redis.conf). */
export function isRedisDatabaseIndexError(error: unknown): boolean {
  return error instanceof Error && /^ERR (DB index is out of range|invalid DB index)/.test(error.message);
}
