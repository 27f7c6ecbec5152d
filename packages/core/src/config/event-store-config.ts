/**
 * The cross-key rules of `[event_store]`. The store lives in a database: one the user names
 * (`database`, sharing that database's transactions) or one of its own (`database_uri`), which
 * becomes the reserved `[databases.event_store]` entry so that everything working on a named
 * database (units of work, outbox relays, `db setup`, the server's start-up wait) works on it.
 */
import type { ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { DATABASE_ENTRY_DEFAULTS } from './defaults.js';
import { isPlainObject } from './substitute-env.js';

/** The `[databases.<name>]` a dedicated event-store database (`event_store.database_uri`) is entered as. */
export const EVENT_STORE_DATABASE = 'event_store';

/**
 * With `event_store.database_uri`, adds `[databases.event_store]` (that provider and URI) and
 * points `event_store.database` at it. Runs before the databases are checked, so the entry is
 * checked like any other and `inbox.database = "event_store"` can name it. Returns whether the
 * store is settled: no `database_uri`, or its entry was added (false: its problems are reported).
 */
export function addDedicatedEventStoreDatabase(config: DomainConfig, explicit: Record<string, unknown>, problems: ConfigProblem[]): boolean {
  const store = isPlainObject(config.event_store) ? config.event_store : undefined;
  if (!store || !Object.hasOwn(store, 'database_uri')) return true;
  // Not a string: the schema check has reported it.
  if (!isPlainObject(config.databases) || typeof store.database_uri !== 'string') return false;
  // What the user wrote (the defaults hold `database` and `provider`); without it, the table itself.
  const written = isPlainObject(explicit.event_store) ? explicit.event_store : store;
  const found: ConfigProblem[] = [];
  if (store.database_uri.trim() === '') {
    found.push({
      path: 'event_store.database_uri',
      message:
        "is empty; set it to the event store's PostgreSQL URI (postgresql://user:password@host/database), or remove it to keep the events in event_store.database",
    });
  }
  if (Object.hasOwn(written, 'database')) {
    found.push({
      path: 'event_store.database_uri',
      message:
        'cannot be set together with event_store.database: the event store lives either in a [databases.<name>] you name ' +
        '(event_store.database, sharing its transactions) or in a database of its own (event_store.database_uri); remove one of the two keys',
    });
  }
  if (!Object.hasOwn(written, 'provider')) {
    found.push({
      path: 'event_store.provider',
      message: 'is required with event_store.database_uri: set provider = "postgresql" (the adapter that reads that URI)',
    });
  } else if (store.provider === 'memory') {
    found.push({
      path: 'event_store.database_uri',
      message: 'has no effect with provider "memory" (a memory store has no database); set provider = "postgresql", or remove database_uri',
    });
  }
  const explicitDatabases = isPlainObject(explicit.databases) ? explicit.databases : {};
  if (Object.hasOwn(explicitDatabases, EVENT_STORE_DATABASE)) {
    found.push({
      path: `databases.${EVENT_STORE_DATABASE}`,
      message:
        `is reserved while event_store.database_uri is set (the event store's own database is entered under that name); ` +
        `either remove event_store.database_uri and set event_store.database = "${EVENT_STORE_DATABASE}", or rename [databases.${EVENT_STORE_DATABASE}]`,
    });
  }
  problems.push(...found);
  // "memory" is refused above; any other value than "postgresql" was reported by the schema check.
  if (found.length || store.provider !== 'postgresql') return false;
  config.databases[EVENT_STORE_DATABASE] = { provider: store.provider, database_uri: store.database_uri, ...DATABASE_ENTRY_DEFAULTS };
  store.database = EVENT_STORE_DATABASE;
  return true;
}

/**
 * `[event_store]` names a database whose provider's event store holds the events (sharing its
 * transactions). Left out, `provider` follows that database; given, it must be that provider.
 */
export function checkEventStore(config: DomainConfig, databases: string[], explicit: Record<string, unknown>, problems: ConfigProblem[]): void {
  const store = isPlainObject(config.event_store) ? config.event_store : undefined;
  if (!store || typeof store.database !== 'string') return;
  if (!databases.includes(store.database)) {
    problems.push({
      path: 'event_store.database',
      message: `database "${store.database}" is not configured; name one of [databases.*] (${databases.join(', ') || 'none'}), or give the store its own database with event_store.database_uri`,
    });
    return;
  }
  const entry = config.databases[store.database];
  const databaseProvider = isPlainObject(entry) ? entry.provider : undefined;
  if (typeof databaseProvider !== 'string') return;
  if (explicit.provider === undefined) {
    if (databaseProvider === 'memory' || databaseProvider === 'postgresql') store.provider = databaseProvider;
    return;
  }
  // A provider that is not one of the values is reported by the schema check alone.
  if ((store.provider === 'memory' || store.provider === 'postgresql') && store.provider !== databaseProvider) {
    problems.push({
      path: 'event_store.provider',
      message: `is "${store.provider}", but [databases.${store.database}] (event_store.database) uses provider "${databaseProvider}"; the event store is that database's own, so set provider = "${databaseProvider}" or name a ${store.provider} database`,
    });
  }
}
