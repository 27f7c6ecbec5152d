/**
 * The PostgreSQL data-access object of one aggregate type inside one transaction (or on the pool
 * for reads). Writes are hand-built statements: INSERT … ON CONFLICT DO NOTHING for new
 * aggregates, compare-and-set UPDATE on `_version` for changed ones, children replaced in the
 * same transaction (unless they are as loaded). A lost race is an `ExpectedVersionError`, never a
 * silent overwrite.
 */
import { ExpectedVersionError, UniqueViolationError } from '@protean-ts/core';
import type { AggregateDao, Filter, QuerySpec } from '@protean-ts/core';
import { isPgError } from '../connection/pg-connection.js';
import { PREPARED, type ExecuteOptions, type SqlExecutor } from '../sql-executor.js';
import type { AggregateMapping } from './aggregate-mapping.js';
import type { ChildRows } from './aggregate-tree-mapper.js';
import type { PlainObject, Row } from './row-mapper.js';

interface PlainElement {
  toPlain(): Record<string, unknown>;
}
type PlainBuilder<T> = { fromPlain(plain: Record<string, unknown>, options?: { version?: number }): T };

const UNIQUE_VIOLATION = '23505';
/** PostgreSQL accepts at most 65535 bound parameters per statement. */
const MAX_PARAMS = 65_535;
/**
 * Statements whose text depends on how many child rows they carry are prepared only for small
 * counts: those repeat; one prepared statement per large count would only fill the connection.
 */
const PREPARE_UP_TO_ROWS = 16;

function preparedFor(rows: number): ExecuteOptions | undefined {
  return rows <= PREPARE_UP_TO_ROWS ? PREPARED : undefined;
}

/**
 * The child rows an aggregate had when `get` loaded it, at the version it was loaded at. A save
 * that expects that version and carries the same child rows leaves the child tables alone: the
 * compare-and-set UPDATE proves nothing changed them since (every write bumps the version), and
 * rewriting them cost two statements per child table (the shop's orders, saved twice each).
 * The entry goes with the first save, so a save after it (say, after a rolled-back one) rewrites.
 */
const loadedChildren = new WeakMap<object, { version: number; rows: string }>();

function childFingerprint(children: readonly ChildRows[]): string {
  return JSON.stringify(children.map((child) => [child.table.tableName, child.rows]));
}

export class PostgresAggregateDao<T extends object> implements AggregateDao<T> {
  constructor(
    private readonly mapping: AggregateMapping<T>,
    private readonly executor: SqlExecutor,
  ) {}

  async get(id: string): Promise<T | undefined> {
    const { rows } = await this.executor.execute<Row>(this.mapping.sql.selectById, [String(id)], PREPARED);
    if (rows.length === 0) return undefined;
    const { plain, version } = this.mapping.tree.fromRow(rows[0]!);
    const aggregate = this.build(plain, version);
    if (this.mapping.model.children.length > 0) loadedChildren.set(aggregate, { version, rows: childFingerprint(this.mapping.tree.childRows(plain)) });
    return aggregate;
  }

  async save(aggregate: T, expectedVersion: number): Promise<void> {
    const { schema, sql, tree } = this.mapping;
    const plain = (aggregate as unknown as PlainElement).toPlain();
    const id = plain[schema.identityField];
    if (id === undefined || id === null || id === '') {
      throw new TypeError(`${schema.name} has no value in its identity field "${schema.identityField}"; it cannot be saved`);
    }
    const key = String(id);
    const params = tree.rootParams(plain);
    try {
      if (expectedVersion === -1) {
        if (!(await this.insertAll(plain, params))) throw new ExpectedVersionError(schema.name, key, -1, await this.storedVersion(key));
      } else {
        const values = sql.updateColumnIndexes.map((i) => params[i]);
        values.push(expectedVersion + 1, key, expectedVersion);
        const updated = await this.executor.execute(sql.update, values, PREPARED);
        if (updated.rowCount === 0) throw new ExpectedVersionError(schema.name, key, expectedVersion, await this.storedVersion(key));
        if (this.mapping.model.children.length === 0) return;
        const children = tree.childRows(plain);
        const loaded = loadedChildren.get(aggregate);
        loadedChildren.delete(aggregate);
        if (loaded && loaded.version === expectedVersion && loaded.rows === childFingerprint(children)) return;
        // Children are replaced: cheaper than diffing, and ids are kept. Grandchildren go by CASCADE.
        for (const child of this.mapping.model.children) await this.executor.execute(sql.childDelete(child), [key], PREPARED);
        await this.insertChildRows(children);
      }
    } catch (error) {
      throw this.translate(error);
    }
  }

  async query(spec: QuerySpec<T>): Promise<T[]> {
    const { sql, filters, model } = this.mapping;
    const where = filters.where(spec.filter as Filter | undefined);
    const tail = filters.orderAndPage(spec as QuerySpec, model.identity);
    const { rows } = await this.executor.execute<Row>(`${sql.select}${where.sql}${tail.sql}`, [...where.params, ...tail.params]);
    return rows.map((row) => this.rebuild(row));
  }

  async count(filter?: Filter<T>): Promise<number> {
    const { sql, filters } = this.mapping;
    const where = filters.where(filter as Filter | undefined);
    const { rows } = await this.executor.execute<{ n: number }>(`${sql.countFrom}${where.sql}`, where.params);
    return rows[0]?.n ?? 0;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.executor.execute(this.mapping.sql.deleteById, [String(id)], PREPARED);
    return result.rowCount > 0;
  }

  /**
   * Inserts a new aggregate and its children, in one statement when the parameters fit in one;
   * false when the identity is already stored (nothing is written then).
   */
  private async insertAll(plain: PlainObject, rootParams: unknown[]): Promise<boolean> {
    const { sql, tree, inserts } = this.mapping;
    const children = tree.childRows(plain);
    const params = rootParams;
    params.push(0);
    if (children.length === 0) return (await this.executor.execute(sql.insert, params, PREPARED)).rowCount > 0;
    let total = params.length;
    for (const child of children) total += child.rows.length * (child.rows[0]?.length ?? 0);
    if (total > MAX_PARAMS) {
      if ((await this.executor.execute(sql.insert, params, PREPARED)).rowCount === 0) return false;
      await this.insertChildren(plain);
      return true;
    }
    let childCount = 0;
    for (const child of children) {
      childCount += child.rows.length;
      for (const row of child.rows) for (const value of row) params.push(value);
    }
    const { rows } = await this.executor.execute<{ n: number }>(inserts.sql(children), params, preparedFor(childCount));
    return rows[0]!.n > 0;
  }

  private async insertChildren(plain: PlainObject): Promise<void> {
    await this.insertChildRows(this.mapping.tree.childRows(plain));
  }

  private async insertChildRows(children: readonly ChildRows[]): Promise<void> {
    const { sql } = this.mapping;
    for (const { table, rows } of children) {
      const batch = sql.childBatchSize(table);
      for (let start = 0; start < rows.length; start += batch) {
        const chunk = rows.length <= batch ? rows : rows.slice(start, start + batch);
        await this.executor.execute(sql.childInsert(table, chunk.length), chunk.length === 1 ? chunk[0]! : chunk.flat(), preparedFor(chunk.length));
      }
    }
  }

  private async storedVersion(id: string): Promise<number | null> {
    const { rows } = await this.executor.execute<{ v: number }>(this.mapping.sql.versionOf, [id], PREPARED);
    return rows.length > 0 ? Number(rows[0]!.v) : null;
  }

  private rebuild(row: Row): T {
    const { plain, version } = this.mapping.tree.fromRow(row);
    return this.build(plain, version);
  }

  private build(plain: PlainObject, version: number): T {
    return (this.mapping.schema.aggregate as unknown as PlainBuilder<T>).fromPlain(plain, { version });
  }

  /** A unique-constraint violation becomes the domain's `UniqueViolationError`, naming the field. */
  private translate(error: unknown): unknown {
    if (!isPgError(error, UNIQUE_VIOLATION)) return error;
    const owner = this.mapping.columnOwner(error.table, error.detail);
    if (!owner) return error;
    const value = /=\((.*)\) already exists/.exec(error.detail ?? '')?.[1] ?? null;
    const translated = new UniqueViolationError(owner.element, owner.column.path.join('.'), value);
    (translated as { cause?: unknown }).cause = error;
    return translated;
  }
}
