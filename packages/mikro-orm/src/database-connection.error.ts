/**
 * Thrown when a PostgreSQL provider cannot reach its database: names the `[databases.<name>]`
 * key and the URI with its password masked, says why, and what to check.
 */
import { maskUri } from '@protean-ts/core';

export class DatabaseConnectionError extends Error {
  override readonly name = 'DatabaseConnectionError';
  readonly maskedUri: string;

  constructor(
    readonly provider: string,
    uri: string,
    cause: unknown,
  ) {
    const masked = maskUri(uri);
    super(`[databases.${provider}] cannot connect to PostgreSQL at ${masked}: ${DatabaseConnectionError.reason(cause)}`, { cause });
    this.maskedUri = masked;
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
