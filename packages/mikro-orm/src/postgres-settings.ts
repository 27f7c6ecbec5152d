/**
 * Reads and checks the PostgreSQL keys of one `[databases.<name>]` table. The config loader has
 * already applied defaults to the common keys; the keys only this provider knows (`schema`,
 * `debug`) are checked here so a typo fails at start-up, naming the key.
 */
import type { DatabaseSettings } from '@protean-ts/core';
import { PostgresSettingsError } from './postgres-settings.error.js';

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

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;
const DEFAULT_POOL_SIZE = 10;

export function readPostgresSettings(name: string, settings: DatabaseSettings): PostgresSettings {
  const uri = settings.database_uri;
  if (typeof uri !== 'string' || uri.trim() === '') {
    throw new PostgresSettingsError(name, 'database_uri', 'is required, e.g. database_uri = "postgresql://user:password@localhost:5432/shop"');
  }
  if (!/^postgres(ql)?:\/\//i.test(uri)) {
    throw new PostgresSettingsError(name, 'database_uri', 'must start with postgresql:// (or postgres://)', uri);
  }
  const poolSize = settings.pool_size ?? DEFAULT_POOL_SIZE;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
    throw new PostgresSettingsError(name, 'pool_size', `must be a positive integer, got ${JSON.stringify(poolSize)}`);
  }
  const schema = settings.schema ?? 'public';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new PostgresSettingsError(name, 'schema', `must be a plain PostgreSQL identifier (letters, digits, _), got ${JSON.stringify(schema)}`);
  }
  const debug = settings.debug ?? false;
  if (typeof debug !== 'boolean') {
    throw new PostgresSettingsError(name, 'debug', `must be true or false, got ${JSON.stringify(debug)}`);
  }
  return { name, uri, poolSize, managed: settings.managed ?? true, schema, debug };
}
