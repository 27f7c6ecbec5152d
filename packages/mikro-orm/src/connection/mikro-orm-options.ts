/**
 * The MikroORM options every instance of a provider shares: its URI and schema, no implicit
 * database creation or connection at init, and MikroORM's own logging routed to the framework
 * logger (debug level, URIs masked) instead of the console, and so are knex's pool warnings
 * (a dead pooled connection thrown away during an outage), which knex would print as raw lines.
 */
import type { Options } from '@mikro-orm/postgresql';
import { getLogger } from '@protean-ts/core';
import type { PostgresSettings } from '../postgres-settings.js';

export function mikroOrmOptions(settings: PostgresSettings): Options {
  const log = getLogger('mikro-orm', { provider: settings.name });
  return {
    clientUrl: settings.uri,
    schema: settings.schema,
    ensureDatabase: false,
    connect: false,
    allowGlobalContext: false,
    debug: settings.debug,
    logger: (message: string) => log.debug(message),
    colors: false,
  };
}

/** knex's `log` option: its warnings and errors as framework log records, never console output. */
export function knexLog(settings: PostgresSettings): Record<'debug' | 'warn' | 'error' | 'deprecate', (message: unknown) => void> {
  const log = getLogger('knex', { provider: settings.name });
  const text = (message: unknown) => (typeof message === 'string' ? message : String(message));
  return {
    debug: (message) => log.debug(text(message)),
    warn: (message) => log.warn(text(message)),
    error: (message) => log.error(text(message)),
    deprecate: (message) => log.warn(text(message)),
  };
}
