/**
 * Creates, drops and empties one provider's tables. Aggregate and entity tables are created by
 * MikroORM's schema generator from the EntitySchemas, in update mode: missing tables and columns
 * are added, nothing is dropped, and a second run changes nothing.
 */
import type { EntitySchema } from '@mikro-orm/postgresql';
import type { SchemaReport } from '@protean-ts/core';
import { mikroOrmOptions } from '../connection/mikro-orm-options.js';
import type { PostgresSettings } from '../postgres-settings.js';
import type { SqlExecutor } from '../sql-executor.js';
import { quoteIdent } from './column-naming.js';
import { SchemaUnusableError } from './schema-unusable.error.js';

/** Who runs the statements, and whether the configured schema exists (owner set) and lets them create tables. */
interface NamespaceAccess {
  role: string;
  owner: string | null;
  usable: boolean | null;
}

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

  /**
   * Creates the schema when it is missing, and checks this role may create tables in it. An
   * existing schema is not created again: CREATE SCHEMA IF NOT EXISTS needs CREATE on the
   * database even when the schema is there, which a role working in a schema granted to it lacks.
   */
  async ensureNamespace(): Promise<void> {
    const { name, schema } = this.settings;
    const { rows } = await this.executor.execute<NamespaceAccess>(
      `SELECT current_user AS role, n.nspowner::regrole::text AS owner,
              has_schema_privilege(n.oid, 'USAGE') AND has_schema_privilege(n.oid, 'CREATE') AS usable
         FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = ?`,
      [schema],
    );
    const access = rows[0]!;
    if (access.owner === null) {
      await this.createNamespace(access.role);
    } else if (!access.usable) {
      throw new SchemaUnusableError(
        name,
        schema,
        `belongs to role "${access.owner}", which has not granted role "${access.role}" USAGE and CREATE on it, so no table can be made there; ` +
          `have its owner run GRANT USAGE, CREATE ON SCHEMA ${quoteIdent(schema)} TO ${quoteIdent(access.role)}, or set [databases.${name}] schema to one of your own`,
      );
    }
  }

  private async createNamespace(role: string): Promise<void> {
    const { name, schema } = this.settings;
    try {
      await this.executor.execute(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // 42501: no CREATE on the database; 42939: a name PostgreSQL reserves (pg_…).
      if (code !== '42501' && code !== '42939') throw error;
      const why = code === '42501' ? `role "${role}" may not create schemas in this database` : 'PostgreSQL reserves that name';
      throw new SchemaUnusableError(
        name,
        schema,
        `does not exist and cannot be created (${why}); create it as a role that may (CREATE SCHEMA ${quoteIdent(schema)} AUTHORIZATION ${quoteIdent(role)}), ` +
          `or set [databases.${name}] schema to an existing one this role may use`,
        { cause: error },
      );
    }
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
    const { MikroORM } = await import('@mikro-orm/postgresql');
    const orm = await MikroORM.init({ ...mikroOrmOptions(this.settings), entities, pool: { min: 0, max: 1 } });
    try {
      await orm.schema.updateSchema({ safe: true, dropTables: false, schema: this.settings.schema });
    } finally {
      await orm.close(true);
    }
  }
}
