/**
 * The observatory reads the outbox and inbox tables with plain SQL where the store ports have no
 * question for it (rates, a correlation id's rows). Only PostgreSQL databases answer; the others
 * are named so the page can say why a view is empty.
 */
import type { DatabaseProvider, Domain } from '@protean-ts/core';
import { PostgresProvider, type SqlDatabase } from '@protean-ts/mikro-orm';

export function sqlDatabaseOf(provider: DatabaseProvider | undefined): SqlDatabase | null {
  return provider instanceof PostgresProvider ? provider : null;
}

/** The managed databases holding an outbox that SQL can read, with the others' names. */
export function outboxDatabases(domain: Domain): { sql: Array<{ name: string; db: SqlDatabase }>; unsupported: string[] } {
  const sql: Array<{ name: string; db: SqlDatabase }> = [];
  const unsupported: string[] = [];
  for (const [name, provider] of domain.providers) {
    if (!provider.managed) continue;
    const db = sqlDatabaseOf(provider);
    if (db) sql.push({ name, db });
    else unsupported.push(`${name} (${provider.kind})`);
  }
  return { sql, unsupported };
}

/** The database holding the inbox tables (`[inbox] database`), when SQL can read it. */
export function inboxDatabase(domain: Domain): SqlDatabase | null {
  return sqlDatabaseOf(domain.providers.get(domain.config.inbox.database));
}
