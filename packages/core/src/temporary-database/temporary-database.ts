/**
 * A throw-away PostgreSQL database for one test file or benchmark run: created under a unique
 * name on a real server, removed by `drop()` even while connections to it are still open. Needs
 * the `pg` package installed: core does not depend on it, so it is imported on first use.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { maskText } from '../config/mask-secrets.js';
import { LOCAL_POSTGRES_URI } from './local-postgres.js';
import { messageOf, PostgresUnreachableError } from './postgres-unreachable.error.js';

export interface TemporaryDatabaseOptions {
  /** The start of the name (`<label>_<random>`), to recognise leftovers: lower-case letters, digits and `_`. Default `test`. */
  label?: string;
  /**
   * Any URI of the server to make it on, `postgresql://user[:password]@host:port[/database][?…]`;
   * its database (default `postgres`) is where CREATE and DROP DATABASE run. Default
   * `PROTEAN_TEST_DATABASE_URI`, else `postgresql://postgres@127.0.0.1:5432`.
   */
  serverUri?: string;
}

export interface TemporaryDatabase {
  name: string;
  /** The server URI with this database in it (user, password and parameters kept). */
  uri: string;
  /** Runs one statement on a short-lived connection (to read tables behind the framework's back); resolves to its rows. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Ends every other connection to the database and drops it; safe to call twice. */
  drop(): Promise<void>;
}

const LABEL = /^[a-z][a-z0-9_]{0,40}$/;
// Errors of the connection itself (the server is down or not there), not of a statement.
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNRESET', '57P03']);

export async function createTemporaryDatabase(options: TemporaryDatabaseOptions = {}): Promise<TemporaryDatabase> {
  const label = options.label ?? 'test';
  if (!LABEL.test(label))
    throw new TypeError(
      `createTemporaryDatabase: label must be lower-case letters, digits and _ (at most 41, starting with a letter), got ${JSON.stringify(label)}`,
    );
  const serverUri = options.serverUri ?? process.env.PROTEAN_TEST_DATABASE_URI ?? LOCAL_POSTGRES_URI;
  const name = `${label}_${randomBytes(5).toString('hex')}`;
  const adminUri = withDatabase(serverUri, null);
  const uri = withDatabase(serverUri, name);

  await withClient(adminUri, (client) => client.query(`CREATE DATABASE "${name}"`), `creating database ${name}`);
  return {
    name,
    uri,
    query: (sql, params = []) => withClient(uri, async (client) => (await client.query(sql, params)).rows),
    drop: () =>
      withClient(
        adminUri,
        async (client) => {
          // FORCE ends sessions too, but not prepared transactions' or replication slots' holders;
          // ending the backends first also tells idle pools why their connection went away.
          await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
          await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        },
        `dropping database ${name}`,
      ),
  };
}

/** The URI with `database` as its path, or the server's own database (default `postgres`) for null. */
function withDatabase(serverUri: string, database: string | null): string {
  let url: URL;
  try {
    url = new URL(serverUri);
  } catch {
    // Not echoed: a malformed value may hold a password maskText cannot recognise.
    throw new TypeError('createTemporaryDatabase: serverUri must be a URI, postgresql://user[:password]@host:port[/database]');
  }
  if (database) url.pathname = `/${database}`;
  else if (url.pathname === '' || url.pathname === '/') url.pathname = '/postgres';
  return url.toString();
}

async function withClient<R>(uri: string, work: (client: Client) => Promise<R>, what?: string): Promise<R> {
  const { default: pg } = await import('pg').catch((error: unknown) => {
    throw new Error('createTemporaryDatabase needs the pg package: npm install --save-dev pg', { cause: error });
  });
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
  // A backend ended by drop() (or a restart) must not become an unhandled 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    if (isUnreachable(error)) throw new PostgresUnreachableError(uri, error);
    throw new Error(`${what ?? 'connecting'} on ${maskText(uri)}: ${maskText(messageOf(error))}`, { cause: error });
  }
  try {
    return await work(client);
  } catch (error) {
    if (!what) throw error;
    throw new Error(`${what} on ${maskText(uri)}: ${maskText(messageOf(error))}`, { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  return /timeout|terminated unexpectedly/i.test(messageOf(error));
}
