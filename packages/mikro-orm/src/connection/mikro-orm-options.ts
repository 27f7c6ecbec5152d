/**
 * The MikroORM options every instance of a provider shares: its URI and schema, no implicit
 * database creation or connection at init, and MikroORM's own logging routed to the framework
 * logger (debug level, URIs masked) instead of the console.
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
