/**
 * Reads and checks the PostgreSQL keys of one `[databases.<name>]` table. The config loader has
 * already applied defaults to the common keys; the keys only this provider knows (`schema`,
 * `debug`) are checked here so a typo fails at start-up, naming the key.
 */
import { describeValue, type DatabaseSettings, type ProviderSettingsSpec } from '@protean-ts/core';
import { PostgresSettingsError } from './postgres-settings.error.js';

// Unquoted-identifier characters, at most 63 (PostgreSQL's NAMEDATALEN - 1); `pg_…` is reserved for system schemas.
const SCHEMA_NAME = /^(?!pg_)[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * The keys a postgresql `[databases.<name>]` table adds to the common ones (`database_uri`,
 * `pool_size`, `managed`), declared to the config loader at registration so a typo such as
 * `shema` is warned about by `config check` and at start, naming the file.
 */
export const POSTGRES_DATABASE_SETTINGS: ProviderSettingsSpec = {
  keys: {
    // Declared here, over the common `database_uri` string, so a mysql:// URI or a bad port is a problem `config check` reports.
    database_uri: { kind: 'uri', schemes: ['postgresql', 'postgres'], example: 'postgresql://app@localhost:5432/shop' },
    schema: {
      kind: 'string',
      format: {
        pattern: SCHEMA_NAME,
        expected: 'a plain PostgreSQL identifier (letters, digits and _, at most 63 characters, not starting with pg_), e.g. "shop"',
      },
    },
    debug: { kind: 'boolean' },
  },
  required: ['database_uri'],
};
/** Same bound as the config schema's `pool_size`: more connections than any server allows is a typo. */
const MAX_POOL_SIZE = 10_000;

export interface PostgresSettings {
  /** The `[databases.<name>]` key. */
  name: string;
  uri: string;
  poolSize: number;
  managed: boolean;
  /** PostgreSQL schema (namespace) holding the tables; `public` unless set. */
  schema: string;
  /** Logs every statement at debug level (parameters included) when true. */
  debug: boolean;
}

const DEFAULT_POOL_SIZE = 10;

export function readPostgresSettings(name: string, settings: DatabaseSettings): PostgresSettings {
  const uri = settings.database_uri;
  if (typeof uri !== 'string' || uri.trim() === '') {
    const got = uri === undefined ? '' : ` (got ${describeValue(uri)})`;
    throw new PostgresSettingsError(
      name,
      'database_uri',
      `is required as a string, e.g. database_uri = "postgresql://user:password@localhost:5432/shop"${got}`,
    );
  }
  if (!/^postgres(ql)?:\/\//i.test(uri)) {
    // A key/value connection string (`host=… password=…`) is not accepted: say so, masked.
    throw new PostgresSettingsError(name, 'database_uri', 'must be a URI starting with postgresql:// (or postgres://)', uri);
  }
  const poolSize = settings.pool_size ?? DEFAULT_POOL_SIZE;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1 || poolSize > MAX_POOL_SIZE) {
    throw new PostgresSettingsError(name, 'pool_size', `must be an integer between 1 and ${MAX_POOL_SIZE}, got ${describeValue(poolSize)}`);
  }
  const schema = settings.schema ?? 'public';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new PostgresSettingsError(
      name,
      'schema',
      `must be a plain PostgreSQL identifier (letters, digits, _; not starting with pg_), got ${describeValue(schema)}`,
    );
  }
  const debug = settings.debug ?? false;
  if (typeof debug !== 'boolean') {
    throw new PostgresSettingsError(name, 'debug', `must be true or false, got ${describeValue(debug)}`);
  }
  return { name, uri, poolSize, managed: settings.managed ?? true, schema, debug };
}
