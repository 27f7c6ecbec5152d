/**
 * A database schema and a broker namespace of a test's own on the real PostgreSQL and Redis:
 * `config` points the domain's `default` database at a fresh schema (every table the framework
 * creates goes there) and its `default` broker at a fresh stream prefix, so test files run in
 * parallel without seeing each other's rows or streams. `cleanUp()` drops the schema and
 * deletes every key under the prefix.
 */
import { randomBytes } from 'node:crypto';
import type { ConfigOverrides, Domain } from '@protean-ts/core';
import { Redis } from 'ioredis';
import pg from 'pg';

export interface IsolatedInfrastructureOptions {
  /** A PostgreSQL database to make the schema in. Default `PROTEAN_TEST_DATABASE_URI`, else `postgresql://postgres@127.0.0.1:5432/postgres`. */
  databaseUri?: string;
  /** Redis. Default `PROTEAN_TEST_REDIS_URI`, else `redis://127.0.0.1:6379`. */
  redisUri?: string;
  /** False: no broker namespace (the domain keeps its configured broker). Default true. */
  redis?: boolean;
  /** Prefix of the schema and stream prefix names, to tell them apart in a shared server. Default `t`. */
  label?: string;
}

export interface IsolatedInfrastructure {
  /** The PostgreSQL schema (`<label>_<random>`). */
  schema: string;
  /** The Redis stream prefix (`<label>-<random>:`), or null without Redis. */
  streamPrefix: string | null;
  /** Pass to `domain.init({ config })` (merge your own keys into it as needed). */
  config: ConfigOverrides;
  /** Creates the domain's tables (aggregates, projections, outbox, inbox, event store, command outcomes) in the schema: `protean-ts db setup`. */
  setUp(domain: Domain): Promise<void>;
  /** Drops the schema and the prefix's streams. Call it after `domain.close()` (or `stopHandlers`). */
  cleanUp(): Promise<void>;
}

export async function isolatedInfrastructure(options: IsolatedInfrastructureOptions = {}): Promise<IsolatedInfrastructure> {
  const label = options.label ?? 't';
  if (!/^[a-z][a-z0-9_]{0,30}$/.test(label))
    throw new TypeError(
      `isolatedInfrastructure: label must be lower-case letters, digits and _ (at most 31, starting with a letter), got ${JSON.stringify(label)}`,
    );
  const suffix = randomBytes(5).toString('hex');
  const schema = `${label}_${suffix}`;
  const databaseUri = options.databaseUri ?? process.env.PROTEAN_TEST_DATABASE_URI ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const redisUri = options.redisUri ?? process.env.PROTEAN_TEST_REDIS_URI ?? 'redis://127.0.0.1:6379';
  const streamPrefix = options.redis === false ? null : `${label}-${suffix}:`;
  const config: ConfigOverrides = {
    databases: { default: { provider: 'postgresql', database_uri: databaseUri, schema } },
    ...(streamPrefix ? { brokers: { default: { provider: 'redis', uri: redisUri, stream_prefix: streamPrefix } } } : {}),
  };
  return {
    schema,
    streamPrefix,
    config,
    setUp: async (domain) => {
      const byProvider = new Map<string, ReturnType<typeof domain.runtime.infrastructure.aggregateSchemas>>();
      for (const s of domain.runtime.infrastructure.aggregateSchemas()) byProvider.set(s.provider, [...(byProvider.get(s.provider) ?? []), s]);
      for (const [name, provider] of domain.providers) {
        if (provider.managed) await provider.setupSchema(byProvider.get(name) ?? [], { outbox: true });
      }
    },
    cleanUp: async () => {
      await withClient(databaseUri, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
      if (streamPrefix) await deleteKeys(redisUri, streamPrefix);
    },
  };
}

async function withClient<R>(uri: string, work: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function deleteKeys(uri: string, prefix: string): Promise<void> {
  const client = new Redis(uri, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
