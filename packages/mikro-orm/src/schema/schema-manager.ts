/**
 * Creates, drops and empties one provider's tables. Aggregate and entity tables are created by
 * MikroORM's schema generator from the EntitySchemas, in update mode: missing tables and columns
 * are added, nothing is dropped, and a second run changes nothing.
 */
import { MikroORM, type EntitySchema } from '@mikro-orm/postgresql';
import type { SchemaReport } from '@protean-ts/core';
import { mikroOrmOptions } from '../connection/mikro-orm-options.js';
import type { PostgresSettings } from '../postgres-settings.js';
import type { SqlExecutor } from '../sql-executor.js';
import { quoteIdent } from './column-naming.js';

export class SchemaManager {
  constructor(
    private readonly settings: PostgresSettings,
    private readonly executor: SqlExecutor,
  ) {}

  /** Creates the schema namespace and the tables of `entities`. */
  async setup(entities: EntitySchema[]): Promise<SchemaReport> {
    const wanted = entities.map((e) => String(e.meta.tableName));
    const before = await this.existingTables();
    await this.ensureNamespace();
    if (entities.length > 0) await this.generate(entities);
    return {
      created: wanted.filter((t) => !before.has(t)),
      existing: wanted.filter((t) => before.has(t)),
    };
  }

  async ensureNamespace(): Promise<void> {
    await this.executor.execute(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.settings.schema)}`);
  }

  /** Drops the tables that exist (children go with CASCADE); returns the ones dropped. */
  async drop(tables: readonly string[]): Promise<string[]> {
    const present = await this.present(tables);
    if (present.length > 0) await this.executor.execute(`DROP TABLE IF EXISTS ${present.map((t) => this.executor.qualify(t)).join(', ')} CASCADE`);
    return present;
  }

  /** Empties the tables that exist and restarts their sequences; returns the ones emptied. */
  async truncate(tables: readonly string[]): Promise<string[]> {
    const present = await this.present(tables);
    if (present.length > 0) await this.executor.execute(`TRUNCATE TABLE ${present.map((t) => this.executor.qualify(t)).join(', ')} RESTART IDENTITY CASCADE`);
    return present;
  }

  async existingTables(): Promise<Set<string>> {
    const { rows } = await this.executor.execute<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'`,
      [this.settings.schema],
    );
    return new Set(rows.map((r) => r.table_name));
  }

  private async present(tables: readonly string[]): Promise<string[]> {
    const existing = await this.existingTables();
    return [...new Set(tables)].filter((t) => existing.has(t));
  }

  /**
   * A short-lived MikroORM instance that knows exactly these entities, so the generator's diff
   * covers the tables asked for and nothing else the provider's main instance has seen.
   */
  private async generate(entities: EntitySchema[]): Promise<void> {
    const orm = await MikroORM.init({ ...mikroOrmOptions(this.settings), entities, pool: { min: 0, max: 1 } });
    try {
      await orm.schema.updateSchema({ safe: true, dropTables: false, schema: this.settings.schema });
    } finally {
      await orm.close(true);
    }
  }
}
