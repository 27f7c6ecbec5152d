/**
 * Thrown when a PostgreSQL provider cannot reach its database: names the `[databases.<name>]`
 * key and the URI with its password masked, says why, what to check, and whether trying again
 * later can help (`retryable`: the server is down or starting, not misconfigured).
 */
import { maskUri } from '@protean-ts/core';

// Socket-level failures: nothing answers (yet) at that address.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
// SQLSTATE: 57P03 "the database system is starting up", 57P01/57P02 shutting down, 53300 too
// many connections. Class 08 (connection exception) is also transient. Authentication (28000,
// 28P01) and a missing database (3D000) are not: waiting cannot fix them.
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
// node-postgres and knex say these without a code.
const TRANSIENT_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout expired',
  'Timeout acquiring a connection',
];

export class DatabaseConnectionError extends Error {
  override readonly name = 'DatabaseConnectionError';
  readonly maskedUri: string;
  /** True when the database is unreachable for now (down, starting, full), so a retry may succeed. */
  readonly retryable: boolean;

  constructor(
    readonly provider: string,
    uri: string,
    cause: unknown,
  ) {
    const masked = maskUri(uri);
    super(`[databases.${provider}] cannot connect to PostgreSQL at ${masked}: ${DatabaseConnectionError.reason(cause)}`, { cause });
    this.maskedUri = masked;
    this.retryable = DatabaseConnectionError.isTransient(cause);
  }

  private static isTransient(cause: unknown): boolean {
    const error = cause as { code?: unknown; message?: unknown } | undefined;
    const code = typeof error?.code === 'string' ? error.code : '';
    if (SOCKET_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (code) return false;
    const message = typeof error?.message === 'string' ? error.message : '';
    return TRANSIENT_MESSAGES.some((text) => message.includes(text));
  }

  private static reason(cause: unknown): string {
    const error = cause as { code?: string; message?: string } | undefined;
    const message = maskUri(error?.message ?? String(cause));
    switch (error?.code) {
      case 'ECONNREFUSED':
        return `connection refused (${message}); is PostgreSQL running and listening on that host and port?`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `host not found (${message}); check the host name in database_uri`;
      case 'ETIMEDOUT':
        return `timed out (${message}); check the host, port and any firewall`;
      case '3D000':
        return `${message}; create it (e.g. createdb) or fix the database name in database_uri`;
      case '28P01':
      case '28000':
        return `${message}; check the user and password in database_uri`;
      default:
        return message;
    }
  }
}
