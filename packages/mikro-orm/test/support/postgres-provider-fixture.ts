/**
 * A PostgreSQL provider on a temp database for one test file: `start()` in beforeAll, `stop()`
 * in afterAll. Tables are created once per set of schemas and emptied on demand.
 */
import type { AggregateSchema, DatabaseSettings } from '@protean-ts/core';
import { PostgresProvider } from '../../src/index.js';
import { createTempDatabase, type TempDatabase } from './temp-database.js';

export class ProviderFixture {
  db!: TempDatabase;
  provider!: PostgresProvider;
  private readonly setUp = new Set<AggregateSchema>();

  constructor(private readonly settings: Partial<DatabaseSettings> = {}) {}

  async start(): Promise<PostgresProvider> {
    this.db = await createTempDatabase();
    this.provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: this.db.uri, managed: true, pool_size: 5, ...this.settings });
    await this.provider.connect();
    return this.provider;
  }

  /** Creates the tables of `schemas` (first time only) and empties them and the outbox. */
  async fresh(schemas: AggregateSchema[]): Promise<PostgresProvider> {
    const missing = schemas.filter((s) => !this.setUp.has(s));
    if (missing.length > 0) {
      await this.provider.setupSchema(missing, { outbox: true });
      for (const s of missing) this.setUp.add(s);
    }
    await this.provider.truncate(schemas);
    return this.provider;
  }

  async stop(): Promise<void> {
    await this.provider?.close();
    await this.db?.drop();
  }
}
