/**
 * One provider's pool of PostgreSQL connections, owned by a MikroORM instance (knex/tarn pool of
 * `pool_size` connections). Transactions and auto-commit statements borrow raw connections from
 * it; MikroORM's own EntityManager and schema generator use the same pool.
 */
import type { EntitySchema, MikroORM } from '@mikro-orm/postgresql';
import { DatabaseConnectionError } from '../database-connection.error.js';
import type { PostgresSettings } from '../postgres-settings.js';
import { knexLog, mikroOrmOptions } from './mikro-orm-options.js';
import type { PgConnection } from './pg-connection.js';
import { PoolExhaustedError } from './pool-exhausted.error.js';

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  /** tarn's pool: how many connections are lent out now. */
  pool?: { numUsed(): number } | null;
}

// A new connection waits at most this long for the server; an unreachable host fails fast.
const CONNECT_TIMEOUT_MS = 10_000;

export class ConnectionPool {
  private constructor(
    readonly orm: MikroORM,
    private readonly settings: PostgresSettings,
  ) {}

  /** Creates the MikroORM instance and checks the database answers. */
  static async open(settings: PostgresSettings): Promise<ConnectionPool> {
    // Imported on first connect, not with the package: commands that only read the
    // configuration never pay for MikroORM, knex and the driver (see entity-schema-builder.ts).
    const { MikroORM } = await import('@mikro-orm/postgresql');
    const orm = await MikroORM.init({
      ...mikroOrmOptions(settings),
      entities: [],
      discovery: { warnWhenNoEntities: false },
      pool: { min: 0, max: settings.poolSize },
      driverOptions: {
        acquireConnectionTimeout: CONNECT_TIMEOUT_MS,
        log: knexLog(settings),
        connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: `protean-ts:${settings.name}` },
        // Unqualified names in users' own SQL resolve to the provider's schema first.
        ...(settings.schema === 'public' ? {} : { searchPath: [settings.schema, 'public'] }),
      },
    });
    const pool = new ConnectionPool(orm, settings);
    try {
      await orm.connect();
      const connection = await pool.acquire();
      try {
        await connection.query('select 1');
      } finally {
        await pool.release(connection);
      }
    } catch (error) {
      await orm.close(true).catch(() => undefined);
      throw error instanceof DatabaseConnectionError ? error : new DatabaseConnectionError(settings.name, settings.uri, error);
    }
    return pool;
  }

  private get knexClient(): KnexClient {
    return this.orm.em.getKnex().client as unknown as KnexClient;
  }

  async acquire(): Promise<PgConnection> {
    try {
      return await this.knexClient.acquireConnection();
    } catch (error) {
      // The acquire timeout ends both waits alike: for a busy pool, and for connections that
      // cannot be created because the server is away. Only the first has every connection lent out.
      if ((error as Error)?.name === 'KnexTimeoutError' && (this.knexClient.pool?.numUsed() ?? 0) >= this.settings.poolSize) {
        throw new PoolExhaustedError(this.settings.name, this.settings.poolSize, CONNECT_TIMEOUT_MS);
      }
      throw new DatabaseConnectionError(this.settings.name, this.settings.uri, error);
    }
  }

  async release(connection: PgConnection): Promise<void> {
    await this.knexClient.releaseConnection(connection);
  }

  /** Makes MikroORM aware of more entity schemas (for its schema generator and EntityManager). */
  discover(schemas: EntitySchema[]): void {
    const known = this.orm.getMetadata();
    const fresh = schemas.filter((s) => !known.has(String(s.meta.className)));
    if (fresh.length > 0) this.orm.discoverEntity(fresh);
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}
