/**
 * The memory provider's data-access object for one aggregate type. Aggregates are stored as
 * deep-copied plain objects (children included) and rebuilt with `fromPlain` on every read, so
 * callers never share state with the store. Inside a transaction, reads see its staged writes.
 */
import { ExpectedVersionError } from '../../errors/expected-version.error.js';
import { UniqueViolationError } from '../../errors/unique-violation.error.js';
import type { AggregateDao, AggregateSchema, Filter, QuerySpec } from '../../ports/aggregate-dao.js';
import type { FieldDefinition } from '../../fields/field-definition.js';
import { checkPaging, compileFilter, compileOrder } from './memory-query.js';
import { sameValue, type MemoryRecord, type MemoryTables, type PlainRecord } from './memory-tables.js';
import type { MemoryTransaction, StagedWrite } from './memory-transaction.js';

interface PlainElement {
  toPlain(): Record<string, unknown>;
}
type PlainBuilder<T> = { fromPlain(plain: Record<string, unknown>, options?: { version?: number }): T };

export class MemoryAggregateDao<T extends object> implements AggregateDao<T> {
  private readonly fields: ReadonlyMap<string, FieldDefinition>;
  private readonly uniqueFields: readonly string[];

  constructor(
    private readonly schema: AggregateSchema<T>,
    private readonly tables: MemoryTables,
    private readonly tx: MemoryTransaction,
  ) {
    this.fields = new Map(schema.fields.map((f) => [f.name, f]));
    this.uniqueFields = schema.fields.filter((f) => f.unique && !f.identifier).map((f) => f.name);
  }

  async get(id: string): Promise<T | undefined> {
    const record = this.visibleRecord(String(id));
    return record ? this.rebuild(record) : undefined;
  }

  async save(aggregate: T, expectedVersion: number): Promise<void> {
    this.tx.assertActive(`save ${this.schema.name}`);
    const data = structuredClone((aggregate as unknown as PlainElement).toPlain());
    const id = data[this.schema.identityField];
    if (id === undefined || id === null || id === '') {
      throw new TypeError(`${this.schema.name} has no value in its identity field "${this.schema.identityField}"; it cannot be saved`);
    }
    const key = String(id);
    const current = this.visibleRecord(key)?.version ?? null;
    if (expectedVersion === -1 ? current !== null : current !== expectedVersion) {
      throw new ExpectedVersionError(this.schema.name, key, expectedVersion, current);
    }
    this.checkUnique(key, data);
    const staged = this.tx.staged(this.schema.tableName);
    const baseVersion = staged.has(key) ? staged.get(key)!.baseVersion : (this.tables.table(this.schema.tableName).get(key)?.version ?? null);
    staged.set(key, {
      kind: 'put',
      record: { id: key, version: expectedVersion + 1, data },
      baseVersion,
      aggregate: this.schema.name,
      uniqueFields: this.uniqueFields,
    });
  }

  async query(spec: QuerySpec<T>): Promise<T[]> {
    checkPaging(this.schema.name, spec);
    const matches = compileFilter(this.schema.name, this.fields, spec.filter);
    const order = compileOrder(this.schema.name, this.fields, spec.orderBy);
    let records = [...this.visible()].filter((r) => matches(r.data));
    if (order) records = records.sort((a, b) => order(a.data, b.data));
    const start = spec.offset ?? 0;
    const end = spec.limit === undefined ? undefined : start + spec.limit;
    return records.slice(start, end).map((record) => this.rebuild(record));
  }

  async count(filter?: Filter<T>): Promise<number> {
    const matches = compileFilter(this.schema.name, this.fields, filter);
    let n = 0;
    for (const record of this.visible()) if (matches(record.data)) n += 1;
    return n;
  }

  async delete(id: string): Promise<boolean> {
    this.tx.assertActive(`delete ${this.schema.name}`);
    const key = String(id);
    if (!this.visibleRecord(key)) return false;
    const staged = this.tx.staged(this.schema.tableName);
    const baseVersion = staged.has(key) ? staged.get(key)!.baseVersion : (this.tables.table(this.schema.tableName).get(key)?.version ?? null);
    staged.set(key, { kind: 'delete', baseVersion });
    return true;
  }

  /** One record as this transaction sees it: its staged write, else the committed record. */
  private visibleRecord(id: string): MemoryRecord | undefined {
    const write = this.staged()?.get(id);
    if (write) return write.kind === 'put' ? write.record : undefined;
    return this.tables.table(this.schema.tableName).get(id);
  }

  /** Committed records overlaid with this transaction's staged writes, in insertion order, without copying the table. */
  private *visible(): Generator<MemoryRecord> {
    const committed = this.tables.table(this.schema.tableName);
    const staged = this.staged();
    for (const [id, record] of committed) {
      const write = staged?.get(id);
      if (!write) yield record;
      else if (write.kind === 'put') yield write.record;
    }
    for (const [id, write] of staged ?? []) if (write.kind === 'put' && !committed.has(id)) yield write.record;
  }

  private staged(): Map<string, StagedWrite> | undefined {
    return this.tx.writes.get(this.schema.tableName);
  }

  private checkUnique(id: string, data: PlainRecord): void {
    for (const field of this.uniqueFields) {
      const value = data[field];
      if (value === undefined || value === null) continue;
      for (const other of this.visible()) {
        if (other.id !== id && sameValue(other.data[field], value)) throw new UniqueViolationError(this.schema.name, field, value);
      }
    }
  }

  private rebuild(record: MemoryRecord): T {
    const builder = this.schema.aggregate as unknown as PlainBuilder<T>;
    return builder.fromPlain(structuredClone(record.data), { version: record.version });
  }
}
