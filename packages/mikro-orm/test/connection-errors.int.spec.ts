/**
 * A database that cannot be reached is one clear error naming the `[databases.<name>]` key and
 * the URI with its password masked; bad settings fail before any connection is tried.
 */
import { describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { BaseAggregate, Domain, field, isRetryableConnectError } from '@protean-ts/core';
import { DatabaseConnectionError, PostgresProvider, PostgresSettingsError } from '../src/index.js';
import { SERVER_URI } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);
const SECRET = 'hunter2-secret';

function provider(uri: string, extra: Record<string, unknown> = {}): PostgresProvider {
  return new PostgresProvider('orders', { provider: 'postgresql', database_uri: uri, managed: true, pool_size: 2, ...extra });
}

async function connectError(uri: string): Promise<unknown> {
  const p = provider(uri);
  try {
    await p.connect();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await p.close();
  }
}

describe('PostgreSQL connection errors', () => {
  it('names the database key and masks the password when nothing listens on the port', async () => {
    const error = await connectError(`postgresql://app:${SECRET}@127.0.0.1:1/shop`);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    const message = (error as Error).message;
    expect(message).toContain('[databases.orders]');
    expect(message).toContain('postgresql://app:***@127.0.0.1:1/shop');
    expect(message).toMatch(
      /^\[databases\.orders\] cannot connect to PostgreSQL at postgresql:\/\/app:\*\*\*@127\.0\.0\.1:1\/shop: connection refused \(connect ECONNREFUSED 127\.0\.0\.1:1\); is PostgreSQL running/,
    );
    expect(message).not.toContain(SECRET);
    expect((error as DatabaseConnectionError).maskedUri).toBe('postgresql://app:***@127.0.0.1:1/shop');
    // Nothing listening may be a server still starting: worth waiting for.
    expect((error as DatabaseConnectionError).retryable).toBe(true);
    expect(isRetryableConnectError(error)).toBe(true);
  });

  it('fails init of a domain whose database is unreachable, with the same error', async () => {
    const domain = new Domain('Unreachable');
    @domain.aggregate()
    class Thing extends BaseAggregate {
      @field.string() name?: string;
    }
    void Thing;
    const error = await domain
      .init({ config: { databases: { default: { provider: 'postgresql', database_uri: `postgresql://app:${SECRET}@127.0.0.1:1/shop` } } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toContain('[databases.default]');
    expect((error as Error).message).not.toContain(SECRET);
    await domain.close();
  });

  it.skipIf(!up)('says how to fix a database that does not exist', async () => {
    const error = await connectError(`${SERVER_URI}/pt_missing_database_x`);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toMatch(/database "pt_missing_database_x" does not exist; create it/);
    // Waiting never creates it.
    expect((error as DatabaseConnectionError).retryable).toBe(false);
    expect(isRetryableConnectError(error)).toBe(false);
  });

  it.skipIf(!up)('a role that does not exist is a permanent error, not one to wait for', async () => {
    const error = await connectError(`postgresql://pt_no_such_role_x@127.0.0.1:5432/postgres`);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toMatch(/role "pt_no_such_role_x" does not exist; check the user and password/);
    expect((error as DatabaseConnectionError).retryable).toBe(false);
  });

  it('refuses bad settings with the key and how to fix it', () => {
    expect(() => new PostgresProvider('orders', { provider: 'postgresql', managed: true, pool_size: 1 })).toThrow(PostgresSettingsError);
    expect(() => new PostgresProvider('orders', { provider: 'postgresql', managed: true, pool_size: 1 })).toThrow(
      /\[databases\.orders\] database_uri is required/,
    );
    expect(() => provider(`mysql://app:${SECRET}@host/db`)).toThrow(
      /database_uri must be a URI starting with postgresql:\/\/ \(or postgres:\/\/\) \(got "mysql:\/\/app:\*\*\*@host\/db"\)/,
    );
    expect(() => provider(`${SERVER_URI}/x`, { schema: 'drop table;' })).toThrow(/\[databases\.orders\] schema must be a plain PostgreSQL identifier/);
    expect(() => provider(`${SERVER_URI}/x`, { pool_size: 0 })).toThrow(/\[databases\.orders\] pool_size must be an integer between 1 and 10000, got 0/);
    expect(() => provider(`${SERVER_URI}/x`, { debug: 'yes' })).toThrow(/debug must be true or false/);
  });

  it('answers ping with false instead of throwing when the database cannot be reached', async () => {
    const p = provider(`postgresql://app:${SECRET}@127.0.0.1:1/shop`);
    expect(await p.ping()).toBe(false);
    await p.close();
  });
});
