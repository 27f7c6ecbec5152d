import { maskText } from '../config/mask-secrets.js';
import { LOCAL_POSTGRES } from './local-postgres.js';

/** PostgreSQL did not answer: the message names the server (password masked) and how to start it. */
export class PostgresUnreachableError extends Error {
  constructor(serverUri: string, cause: unknown) {
    const { hostname, port } = new URL(serverUri);
    const local = hostname === LOCAL_POSTGRES.host && Number(port || 5432) === LOCAL_POSTGRES.port;
    const fix = local
      ? `start it with: ${LOCAL_POSTGRES.startHint}`
      : 'start PostgreSQL there, or point PROTEAN_TEST_DATABASE_URI (or the serverUri option) at a running server';
    super(`PostgreSQL is not reachable at ${maskText(serverUri)} (${maskText(messageOf(cause))}); ${fix}`, { cause });
    this.name = 'PostgresUnreachableError';
  }
}

/** What went wrong, in words, for whatever pg or node threw. */
export function messageOf(error: unknown): string {
  // Node's connection attempts to several addresses fail with an AggregateError and no message.
  if (error instanceof AggregateError && !error.message) return error.errors.map(messageOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}
